/* The turn (T1-T8), the zones, scoring and legal actions: engine/state.py's Match, engine/zones.py's Zones. */
#include <stdlib.h>

#include "core.h"

void append_event(EventLog *log, int kind, int vis, int player, int card, int a, int b) {
    if (log->failed) return;
    if (log->n + 6 > log->cap) {
        size_t cap = log->cap ? 2 * log->cap : 384;
        int32_t *data = realloc(log->data, cap * sizeof *data);
        if (!data) {
            log->failed = 1;
            return;
        }
        log->data = data;
        log->cap = cap;
    }
    int32_t *e = log->data + log->n;
    e[0] = kind, e[1] = vis, e[2] = player, e[3] = card, e[4] = a, e[5] = b;
    log->n += 6;
}

/* ---------------------------------------------------------------- zones */

Cards *zone_cards(State *s, int zone) { /* Zones.cards */
    if (zone < Z_FACTION) return &s->hands[zone];
    if (zone < Z_DISCARD) return &s->factions[zone - Z_FACTION];
    if (zone == Z_DISCARD) return &s->discard;
    if (zone == Z_GOALS) return &s->goals;
    return &s->deck;
}

int faction_of(const State *s, int card) { /* Zones.faction_of */
    if (cards_has(&s->factions[0], card)) return 0;
    if (cards_has(&s->factions[1], card)) return 1;
    return -1;
}

/* Zones.settle */
static void settle(State *s, const Tables *t, int card, int source, int target) {
    if (!is_faction_zone(source)) return;
    if (is_faction_zone(target)) {
        int owner = target - Z_FACTION;
        if (s->guard[card] >= 0 && s->guard[card] != owner) s->guard[card] = -1;
        return;
    }
    s->skill[card] = t->printed_skill[card];
    s->rank[card] = t->printed_rank[card];
    s->guard[card] = -1;
    if (s->ntemp) {
        int k = 0;
        for (int i = 0; i < s->ntemp; i++)
            if (s->temp[i][0] != card) memcpy(s->temp[k++], s->temp[i], 5);
        s->ntemp = (uint8_t)k;
    }
}

/* Match.move_card (Zones.move, then what both players know, then the event) */
void move_card(State *s, const Ctx *x, int card, int source, int target) {
    cards_remove(zone_cards(s, source), card);
    cards_append(zone_cards(s, target), card);
    settle(s, x->t, card, source, target);
    if (is_hand_zone(target) || target == Z_DECK) s->known[card] = BOTH_KNOW;
    log_event(x, EV_MOVE, PUBLIC, s->player, card, source, target);
}

/* Zones.__init__ with the printed tables: every card's place still to be set */
void state_blank(State *s, const Tables *t) {
    memset(&s->hands, 0, sizeof s->hands);
    memset(&s->factions, 0, sizeof s->factions);
    s->discard.n = s->goals.n = s->deck.n = 0;
    s->artifact = -1;
    memcpy(s->skill, t->printed_skill, NUM_CARDS);
    memcpy(s->rank, t->printed_rank, NUM_CARDS);
    memset(s->guard, -1, NUM_CARDS);
    memset(s->recalled, 0, NUM_CARDS);
    memset(s->known, 0, NUM_CARDS);
    s->ntemp = 0;
}

static void effect_clear(State *s) { /* EffectState.clear */
    s->ekind = EK_NONE;
    s->ecard = -1;
    memset(s->args, 0, MAX_ARGS);
    s->step = ST_TARGET;
    s->remaining = 0;
    s->pending = -1;
    s->picked.n = 0;
    s->revealed.n = 0;
    s->decisions = 0;
}

/* ---------------------------------------------------------------- scoring */

void state_scores(const State *s, const Tables *t, int *s0, int *s1) { /* Match.scores */
    *s0 = *s1 = 0;
    if (!s->goals.n) return;
    Stats st0, st1;
    faction_stats(s, &s->factions[0], &st0);
    faction_stats(s, &s->factions[1], &st1);
    for (int i = 0; i < s->goals.n; i++) {
        int g = s->goals.c[i], w0, w1;
        goal_winners(t->goal_kind[g], t->goal_arg[g], &st0, &st1, &w0, &w1);
        *s0 += t->goal_stars[g] * w0;
        *s1 += t->goal_stars[g] * w1;
    }
}

/* ---------------------------------------------------------------- the turn */

static void begin_play(State *s, const Ctx *x);
static void end_turn(State *s, const Ctx *x);

static void begin_turn(State *s, const Ctx *x) { /* Match._begin_turn */
    s->turn_no++;
    s->lead = s->holder;
    s->turn_step = 0;
    begin_play(s, x);
}

static void end_play(State *s, const Ctx *x) { /* Match._end_play */
    s->active = -1;
    if (s->turn_step == 0) {
        s->turn_step = 1;
        begin_play(s, x);
    } else {
        end_turn(s, x);
    }
}

static void begin_play(State *s, const Ctx *x) { /* Match._begin_play */
    int p = s->turn_step == 0 ? s->lead : 1 - s->lead;
    s->player = (int8_t)p;
    if (!s->hands[p].n) { /* T2 */
        log_event(x, EV_PASS, PUBLIC, p, -1, 0, 0);
        end_play(s, x);
        return;
    }
    s->phase = PH_SELECT;
}

/* Match._deal (M3) */
void state_deal(State *s, const Ctx *x, const int8_t *order, int holder) {
    state_blank(s, x->t);
    for (int p = 0; p < 2; p++) {
        s->hands[p].n = HAND_SIZE;
        for (int i = 0; i < HAND_SIZE; i++) {
            int c = order[p * HAND_SIZE + i];
            s->hands[p].c[i] = (int8_t)c;
            s->known[c] = (uint8_t)(1 << p);
        }
    }
    s->artifact = order[2 * HAND_SIZE];
    s->discard.n = 1;
    s->discard.c[0] = order[2 * HAND_SIZE + 1];
    s->deck.n = NUM_CARDS - 2 * HAND_SIZE - 2;
    memcpy(s->deck.c, order + 2 * HAND_SIZE + 2, s->deck.n);
    effect_clear(s);
    s->holder = (int8_t)holder;
    s->first_holders[s->nfirst++] = (int8_t)holder;
    s->active = -1;
    log_event(x, EV_ROUND_START, PUBLIC, holder, -1, s->round_no, 0);
    log_event(x, EV_START_DISCARD, PUBLIC, -1, s->discard.c[0], 0, 0);
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < s->hands[p].n; i++) log_event(x, EV_DEALT, p, p, s->hands[p].c[i], 0, 0);
    begin_turn(s, x);
}

/* Match._start_round: the next deal when the caller gave it, else wait for it (chance mode) */
static void start_round(State *s, const Ctx *x, int holder) {
    s->round_no++;
    if (s->round_no <= x->ndeals) {
        state_deal(s, x, x->deals[s->round_no - 1], holder);
        return;
    }
    state_blank(s, x->t);
    effect_clear(s);
    s->phase = PH_DEAL;
    s->player = CHANCE_PLAYER;
    s->deal_holder = (int8_t)holder;
}

static void win_round(State *s, const Ctx *x, int winner, int reason) { /* Match._win_round */
    s->round_wins[winner]++;
    s->results[s->nresults][0] = (int8_t)winner;
    s->results[s->nresults][1] = (int8_t)reason;
    s->nresults++;
    log_event(x, EV_ROUND_END, PUBLIC, winner, -1, reason, s->round_no);
    if (s->round_wins[winner] >= ROUNDS_TO_WIN) {
        s->winner = (int8_t)winner;
        s->phase = PH_OVER;
        log_event(x, EV_MATCH_END, PUBLIC, winner, -1, 0, 0);
        return;
    }
    start_round(s, x, 1 - winner); /* M2 */
}

static void revert_temporary(State *s, const Ctx *x) { /* Match._revert_temporary (C6) */
    for (int i = s->ntemp - 1; i >= 0; i--) {
        const int8_t *tp = s->temp[i];
        int card = tp[0], changed = 0;
        if (s->skill[card] == tp[3] && tp[1] != tp[3]) {
            s->skill[card] = tp[1];
            changed = 1;
        }
        if (s->rank[card] == tp[4] && tp[2] != tp[4]) {
            s->rank[card] = tp[2];
            changed = 1;
        }
        if (changed) log_event(x, EV_REVERT, PUBLIC, -1, card, s->skill[card], s->rank[card]);
    }
    s->ntemp = 0;
}

static void end_turn(State *s, const Ctx *x) { /* Match._end_turn (T5-T8) */
    int s0, s1;
    state_scores(s, x->t, &s0, &s1);
    log_event(x, EV_SCORE, PUBLIC, -1, -1, s0, s1);
    revert_temporary(s, x);
    int lead = s->lead, other = 1 - lead;
    int mine = lead == 0 ? s0 : s1, theirs = lead == 0 ? s1 : s0;
    if (mine > theirs) { /* T6 */
        win_round(s, x, lead, OUTSCORED);
        return;
    }
    if (theirs > mine) {
        s->holder = (int8_t)other;
        log_event(x, EV_ARTIFACT, PUBLIC, other, -1, 0, 0);
    }
    for (int k = 0; k < 2; k++) { /* T7 */
        int p = k == 0 ? lead : other;
        if (s->deck.n) {
            int c = s->deck.c[--s->deck.n];
            cards_append(&s->hands[p], c);
            s->known[c] |= (uint8_t)(1 << p);
            log_event(x, EV_DRAW, PUBLIC, p, -1, 0, 0);
            log_event(x, EV_DREW, p, p, c, 0, 0);
        }
    }
    if (!s->hands[0].n && !s->hands[1].n) { /* T8 */
        win_round(s, x, s->holder, HANDS_EMPTY);
        return;
    }
    begin_turn(s, x);
}

/* ---------------------------------------------------------------- effects */

static void finish_effect(State *s, const Ctx *x, int declined) { /* Match._finish_effect */
    int card = s->active;
    cards_append(&s->discard, card);
    log_event(x, EV_DISCARDED, PUBLIC, s->player, card, s->decisions, declined);
    effect_clear(s);
    end_play(s, x);
}

void continue_effect(State *s, const Ctx *x) { /* Match.continue_effect */
    if (s->ekind == EK_NONE) return;
    if (s->remaining <= 0 || !effect_next_decision(s, x)) finish_effect(s, x, 0);
}

static void start_effect(State *s, const Ctx *x, int card) { /* Match._start_effect */
    const Tables *t = x->t;
    s->ekind = t->effect_kind[card];
    s->ecard = (int8_t)card;
    memcpy(s->args, t->effect_args[card], MAX_ARGS);
    s->remaining = (int8_t)effect_picks(s->ekind, s->args);
    s->picked.n = 0;
    s->revealed.n = 0;
    s->pending = -1;
    s->step = ST_TARGET;
    s->phase = PH_EFFECT;
    effect_begin(s, x);
    continue_effect(s, x);
}

void resolve_effect_of(State *s, const Ctx *x, int card) { /* Match.resolve_effect_of (Study) */
    log_event(x, EV_RESOLVE, PUBLIC, s->player, card, 0, 0);
    start_effect(s, x, card);
}

/* ---------------------------------------------------------------- legal actions */

static int from_mask(uint32_t mask, int8_t *out) {
    int n = 0;
    while (mask) {
        int c = __builtin_ctz(mask);
        out[n++] = (int8_t)c;
        mask &= mask - 1;
    }
    return n;
}

/* Match.legal_actions: in increasing order */
int state_legal(const State *s, const Ctx *x, int8_t *out) {
    switch (s->phase) {
    case PH_SELECT: return from_mask(cards_mask(&s->hands[s->player]), out);
    case PH_MODE:
        for (int i = 0; i < 4; i++) out[i] = (int8_t)(A_DISCARD + i);
        return 4;
    case PH_EFFECT: {
        if (s->step == ST_SKILLSET) {
            for (int i = 0; i < 3; i++) out[i] = (int8_t)(A_SKILLSET0 + i);
            return 3;
        }
        if (s->step == ST_FACTION) {
            out[0] = A_MINE, out[1] = A_THEIRS;
            return 2;
        }
        int n = from_mask(effect_targets(s, x, s->step), out);
        if (s->step == ST_TARGET && effect_optional(s->ekind, s->args)) out[n++] = A_DONE;
        return n;
    }
    default: return 0; /* over, or between rounds */
    }
}

int state_is_legal(const State *s, const Ctx *x, int action) {
    int8_t legal[NUM_ACTIONS];
    int n = state_legal(s, x, legal);
    for (int i = 0; i < n; i++)
        if (legal[i] == action) return 1;
    return 0;
}

/* ---------------------------------------------------------------- applying actions */

static void play_mode(State *s, const Ctx *x, int mode) { /* Match._play_mode (T3) */
    int p = s->player, c = s->active;
    if (mode == A_DISCARD) {
        log_event(x, EV_PLAY, PUBLIC, p, c, A_DISCARD, -1);
        start_effect(s, x, c);
        return;
    }
    if (mode == A_DECLARE) {
        cards_append(&s->goals, c);
        log_event(x, EV_PLAY, PUBLIC, p, c, A_DECLARE, -1);
    } else {
        int owner = owner_of(s, mode);
        cards_append(&s->factions[owner], c);
        log_event(x, EV_PLAY, PUBLIC, p, c, mode, owner);
    }
    end_play(s, x);
}

/* Match._apply: an action taken from state_legal */
void state_apply(State *s, const Ctx *x, int action) {
    switch (s->phase) {
    case PH_SELECT:
        cards_remove(&s->hands[s->player], action);
        s->active = (int8_t)action;
        s->phase = PH_MODE;
        return;
    case PH_MODE: play_mode(s, x, action); return;
    case PH_EFFECT:
        if (action == A_DONE) {
            finish_effect(s, x, 1);
            return;
        }
        s->decisions++;
        effect_act(s, x, action);
        return;
    default: return;
    }
}

/* Match._random_action: the legal action at u (in [0, 1)) of a uniform draw */
int state_random_action(const State *s, const Ctx *x, double u, int decline) {
    switch (s->phase) {
    case PH_SELECT: {
        const Cards *hand = &s->hands[s->player];
        return hand->c[(int)(u * hand->n)];
    }
    case PH_MODE: return A_DISCARD + (int)(u * 4);
    case PH_EFFECT:
        if (s->step == ST_SKILLSET) return A_SKILLSET0 + (int)(u * 3);
        if (s->step == ST_FACTION) return A_MINE + (int)(u * 2);
        break;
    default: break;
    }
    int8_t legal[NUM_ACTIONS];
    int n = state_legal(s, x, legal);
    if (!decline && n > 1 && legal[n - 1] == A_DONE) n--;
    return legal[(int)(u * n)];
}
