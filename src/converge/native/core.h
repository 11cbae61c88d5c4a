/* The native core: a round of Converge as a flat value, for search.
 *
 * The rules engine in converge/engine (Python, compiled by mypyc) is the specification; this is a second
 * implementation of the same rules for speed, proved equal to it by tests/engine/test_native.py, which plays
 * both side by side (same actions, same legal actions, same events, same state after every action) on
 * every built-in playset, on fuzzed positions and on decks of every effect and goal kind.
 *
 * A state is one plain struct (about 300 bytes): copying it is a memcpy, so search copies states instead of
 * undoing moves. Card ids, zones, phases, actions and event kinds are numbered as in the Python engine
 * (converge/engine/actions.py, zones.py, turn.py, events.py); each function below names the Python function
 * it mirrors. Only the built-in effect and goal kinds exist here: a playset with a kind defined in Python
 * (an extension) is played on the Python engine alone.
 */
#ifndef CONVERGE_CORE_H
#define CONVERGE_CORE_H

#include <stdint.h>
#include <string.h>

#define NUM_CARDS 18
#define HAND_SIZE 3
#define ROUNDS_TO_WIN 2
#define MAX_ROUNDS 3
#define MAX_TEMP 16 /* conversions until the end of a turn: at most 2 plays x 2 cards; room to spare */
#define MAX_ARGS 4

/* actions (engine/actions.py) */
enum { A_DISCARD = 18, A_DECLARE = 19, A_MINE = 20, A_THEIRS = 21, A_SKILLSET0 = 22, A_DONE = 25,
       NUM_ACTIONS = 26 };

/* zones (engine/zones.py) */
enum { Z_HAND = 0, Z_FACTION = 2, Z_DISCARD = 4, Z_GOALS = 5, Z_DECK = 6 };
#define BOTH_KNOW 3

/* phases (engine/turn.py); DEAL is also where a round that ended waits in a world of a search */
enum { PH_SELECT = 0, PH_MODE = 1, PH_EFFECT = 2, PH_OVER = 3, PH_DEAL = 4, PH_START = 5 };
#define CHANCE_PLAYER (-2)

/* effect steps (engine/effects/base.py) */
enum { ST_TARGET = 0, ST_SKILLSET = 1, ST_FACTION = 2, ST_SECOND = 3 };

/* event kinds (engine/events.py EventKind) */
enum { EV_ROUND_START, EV_START_DISCARD, EV_DEALT, EV_PLAY, EV_PASS, EV_RESOLVE, EV_MOVE, EV_CONVERT,
       EV_REVERT, EV_GUARD, EV_REVEAL, EV_SEARCH, EV_SAW, EV_TOOK, EV_DISCARDED, EV_SCORE, EV_ARTIFACT,
       EV_DRAW, EV_DREW, EV_ROUND_END, EV_MATCH_END };
#define PUBLIC (-1)
enum { OUTSCORED = 0, HANDS_EMPTY = 1 };

/* The built-in effect kinds, in the registry's canonical order (engine/effects/__init__.py). */
enum { EK_NONE = -1, EK_CONVERT, EK_ASSEMBLE, EK_RECALL, EK_GUARD, EK_SEARCH, EK_TRADE, EK_EXPAND, EK_STUDY,
       EK_HEAL, NUM_EFFECT_KINDS };
/* The built-in goal kinds, in their canonical order (engine/goals/kinds.py builtin()). */
enum { GK_HIGHEST_SKILLSET, GK_LOWEST_SKILLSET, GK_MOST_SKILLSET, GK_FEWEST_SKILLSET, GK_MOST_SKILLSETS,
       GK_HIGHEST_RANK_TOTAL, GK_LOWEST_RANK_TOTAL, GK_MOST_CARDS, GK_FEWEST_CARDS, GK_CONSECUTIVE_RANKS,
       GK_DIFFERENT_RANKS, GK_SAME_RANK, GK_ONE_SKILLSET, GK_EACH_SKILLSET, GK_RANK_TOTAL, NUM_GOAL_KINDS };

/* A playset compiled for the core (engine/playset.py's tables). */
typedef struct {
    int8_t printed_skill[NUM_CARDS];
    int8_t printed_rank[NUM_CARDS];
    int8_t goal_kind[NUM_CARDS];
    int8_t goal_arg[NUM_CARDS];
    int8_t goal_stars[NUM_CARDS];
    int8_t effect_kind[NUM_CARDS];
    int8_t effect_args[NUM_CARDS][MAX_ARGS];
} Tables;

/* An ordered list of cards (a zone: its order is the Python list's). */
typedef struct {
    uint8_t n;
    int8_t c[NUM_CARDS];
} Cards;

typedef struct {
    /* zones (engine/zones.py Zones) */
    Cards hands[2], factions[2], discard, goals, deck;
    int8_t artifact;
    int8_t skill[NUM_CARDS], rank[NUM_CARDS], guard[NUM_CARDS];
    uint8_t recalled[NUM_CARDS], known[NUM_CARDS];
    uint8_t ntemp;
    int8_t temp[MAX_TEMP][5]; /* (card, old skillset, old rank, new skillset, new rank) */
    /* turn (engine/turn.py TurnState) */
    int16_t round_no, turn_no;
    int8_t round_wins[2];
    uint8_t nresults;
    int8_t results[MAX_ROUNDS][2]; /* (winner, reason) */
    uint8_t nfirst;
    int8_t first_holders[MAX_ROUNDS];
    int8_t holder, lead, turn_step, phase, player, active, winner, deal_holder;
    /* the effect in progress (engine/effects/base.py EffectState) */
    int8_t ekind, ecard, step, remaining, pending;
    int8_t args[MAX_ARGS];
    uint8_t decisions;
    Cards picked, revealed;
} State;

/* Events, when a caller wants them (differential tests; search runs without). */
typedef struct {
    int32_t *data; /* 6 ints an event: kind, visibility, player, card, a, b */
    size_t n, cap;
    int failed; /* out of memory */
} EventLog;

/* What the rules need besides the state: the playset, the event log (or NULL), and the deal orders of
 * later rounds (or none: a round that ends then waits in PH_DEAL, as a world of a search does). */
typedef struct {
    const Tables *t;
    EventLog *log;
    int ndeals;
    const int8_t (*deals)[NUM_CARDS]; /* deals[r] is the order of round r + 1 */
} Ctx;

/* ---- cards lists ---- */
static inline int cards_index(const Cards *l, int card) {
    for (int i = 0; i < l->n; i++)
        if (l->c[i] == card) return i;
    return -1;
}
static inline int cards_has(const Cards *l, int card) { return cards_index(l, card) >= 0; }
static inline void cards_append(Cards *l, int card) { l->c[l->n++] = (int8_t)card; }
static inline void cards_remove_at(Cards *l, int i) {
    memmove(l->c + i, l->c + i + 1, (size_t)(l->n - i - 1));
    l->n--;
}
static inline void cards_remove(Cards *l, int card) {
    int i = cards_index(l, card);
    if (i >= 0) cards_remove_at(l, i);
}
static inline uint32_t cards_mask(const Cards *l) {
    uint32_t m = 0;
    for (int i = 0; i < l->n; i++) m |= 1u << l->c[i];
    return m;
}

/* ---- rules.c ---- */
void append_event(EventLog *log, int kind, int vis, int player, int card, int a, int b);
static inline void log_event(const Ctx *x, int kind, int vis, int player, int card, int a, int b) {
    if (x->log) append_event(x->log, kind, vis, player, card, a, b);
}
void state_deal(State *s, const Ctx *x, const int8_t *order, int holder);
void state_blank(State *s, const Tables *t);
int state_legal(const State *s, const Ctx *x, int8_t *out); /* sorted; returns how many */
int state_is_legal(const State *s, const Ctx *x, int action);
void state_apply(State *s, const Ctx *x, int action);
void state_scores(const State *s, const Tables *t, int *s0, int *s1);
int state_random_action(const State *s, const Ctx *x, double u, int decline);
void move_card(State *s, const Ctx *x, int card, int source, int target);
void continue_effect(State *s, const Ctx *x);
void resolve_effect_of(State *s, const Ctx *x, int card);
Cards *zone_cards(State *s, int zone);
int faction_of(const State *s, int card);
static inline int movable(const State *s, int card, int player) {
    int g = s->guard[card];
    return g < 0 || g == player;
}
static inline int owner_of(const State *s, int action) { return action == A_MINE ? s->player : 1 - s->player; }
static inline int is_hand_zone(int z) { return z == 0 || z == 1; }
static inline int is_faction_zone(int z) { return z == 2 || z == 3; }

/* ---- worlds.c ---- */
void state_sample(State *s, int player, uint64_t *rng);

/* ---- playout.c: the search's playout policies (Match.random_playout, Match.placement_playout) ---- */
void random_playout(State *s, const Ctx *x, uint64_t *rng, int decline);
void placement_playout(State *s, const Ctx *x, uint64_t *rng, double greedy);

/* ---- effects.c: the nine built-in kinds (engine/effects/<kind>.py) ---- */
int effect_picks(int kind, const int8_t *args);
int effect_optional(int kind, const int8_t *args);
void effect_begin(State *s, const Ctx *x);
int effect_next_decision(State *s, const Ctx *x);
uint32_t effect_targets(const State *s, const Ctx *x, int step); /* a set of card ids */
void effect_act(State *s, const Ctx *x, int action);
int effect_public_choice(int kind, int step);

/* ---- goals.c: faction counts and the fifteen built-in goal kinds (engine/goals) ---- */
/* One faction's counts (FactionStats): per skillset index its cards, highest and lowest rank (0 and 7 when
 * none), cards per rank (1..6), the rank total and the size. */
typedef struct {
    int count[3], high[3], low[3], per_rank[7], total, size;
} Stats;
void faction_stats(const State *s, const Cards *f, Stats *st);
void stats_add(Stats *st, int skill, int rank);
int goal_value(int kind, int arg, const Stats *st);
int goal_single_winner(int kind);
void goal_winners_of(int kind, int v0, int v1, int *w0, int *w1);
void goal_winners(int kind, int arg, const Stats *st0, const Stats *st1, int *w0, int *w1);

#endif
