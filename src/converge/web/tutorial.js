// The tutorial, played in the page: a fixed position and a script of moves (/api/tutorial), replayed by the
// engine on the server into the states shown here. The page lets the player make only the move the instruction
// names; the opponent's scripted moves follow by themselves, at a readable pace.

import { announce, el, toast } from "./dom.js";
import { currentStep, instructionStep } from "./selectors.js";
import { pace } from "./storage.js";
import { getState, letGo, tutorialFinished, tutorialLoaded, tutorialOpponentMoved, tutorialPlayed, tutorialStepped,
         tutorialWaiting } from "./store.js";
import { api } from "./transport.js";

const tutorial = () => getState().match.tutorial;

/** Load the script and show its first position; throws when it cannot be loaded. */
export async function openTutorial() {
  tutorialLoaded(await api("GET", "/api/tutorial"));
}

/** The coach's box: the instruction (what to do with a held card, while one is held), Next after a note. */
export function coach() {
  const t = tutorial();
  if (t.done) {
    return el("div", { class: "coach done", data: { testid: "tutorial-complete" } },
      el("p", { class: "coach-text", data: { testid: "coach-text" } }, el("strong", { text: "Tutorial complete. " }),
        "You know how to play a card three ways, how goals score and how the artifact moves."),
      el("p", { class: "row" }, el("a", { class: "button-link primary", href: "/" }, "Play a real match"),
        el("a", { href: "/rules" }, "Read the rules")));
  }
  const step = instructionStep();
  const box = el("div", { class: "coach", role: "note", "aria-label": "Tutorial" },
    el("p", { class: "coach-text", data: { testid: "coach-text", step: t.step } }, el("span", { class: "coach-tag", text: "Tutorial" }), " ", step.text));
  const last = t.step === t.script.steps.length - 1;
  if (step.expect === null && !t.waiting) {
    box.append(el("button", { type: "button", class: "choice", data: { testid: "coach-next", focus: "coach-next" },
      onclick: tutorialNext }, last ? "Finish" : "Next"));
  }
  return box;
}

/** Read the scripted opponent's moves aloud (the player's own are on screen where they pressed). */
function announceOpponent(events) {
  const texts = events.filter((e) => e.player === 1 && e.text).map((e) => e.text);
  if (texts.length) announce(texts.join(" "));
}

/** After a step: announce the next instruction, then play the opponent's scripted moves, each after a pause. */
async function afterStep() {
  announce(currentStep().text);
  while (!tutorial().done && tutorial().step < tutorial().script.steps.length && currentStep().player === 1 &&
         currentStep().expect !== null) {
    tutorialWaiting();
    await new Promise((resolve) => setTimeout(resolve, Math.max(pace(), 250)));
    announceOpponent(tutorialOpponentMoved());
    announce(currentStep().text);
  }
}

/** The player's move (a held card and its follow-up: two): only the ones the script expects. */
export function tutorialAct(actions) {
  const t = tutorial();
  if (actions.some((a, k) => (t.script.steps[t.step + k] || {}).expect !== a)) {
    toast("In this tutorial, follow the instruction above the hand.");
    letGo();
    return;
  }
  announceOpponent(tutorialPlayed(actions));
  afterStep();
}

/** Next (or Finish) after a note of the coach. */
function tutorialNext() {
  const t = tutorial();
  if (t.step >= t.script.steps.length - 1) {
    tutorialFinished();
    announce("Tutorial complete.");
    return;
  }
  tutorialStepped();
  afterStep();
}
