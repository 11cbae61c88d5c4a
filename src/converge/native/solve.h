/* Exact endgames: once the deck is empty, every world a player cannot tell from the real one is solved, not
 * sampled (converge/bots/endgame.py says what is computed, and tests/bots/test_endgame.py checks it against a
 * brute force on the engine). */
#ifndef CONVERGE_SOLVE_H
#define CONVERGE_SOLVE_H

#include "core.h"

#define MAX_WORLDS 64

typedef struct {
    uint64_t k1, k2; /* the state's two hashes (0, 0: empty) */
    int8_t value;    /* 1: the player wins the round with best play on both sides, 0: loses */
} TTEntry;

typedef struct {
    const Ctx *x;
    int me, round_index;
    TTEntry *table;
    size_t mask; /* the table has mask + 1 entries */
    long long nodes, budget;
    int aborted; /* the budget ran out (or memory, or the plies): nothing the solver says is to be trusted */
    int ply;     /* how deep solve_world is now: a round that goes on past MAX_PLIES is left to the search */
} Solver;

/* Deeper than this, solve_world gives up (a round whose endgame recalls cards could go on and on; each ply
 * holds a frame of states on the stack). */
#define MAX_PLIES 64

/* A solver for `me` in the round `round_index` with a budget of nodes; 0, or -1 out of memory. */
int solver_init(Solver *S, const Ctx *x, int me, int round_index, long long budget);
void solver_free(Solver *S);

/* Whether `me` wins the round from `s`, both players seeing everything and playing their best. */
int solve_world(Solver *S, const State *s);

/* Whether `me` has one way of playing on — its choices depending only on what it sees — that wins the round in
 * every one of the n worlds, whatever the opponent does in each (the opponent may see everything). The worlds
 * must be ones `me` cannot tell apart. */
int wins_in_every_case(Solver *S, const State *worlds, int n);

/* The worlds `me` cannot tell from `s` when the deck is empty: every way of dealing the cards hidden from `me`
 * (the opponent's unknown cards and the artifact) into their places, each as likely. Returns how many (at most
 * cap), or -1 when the deck is not empty, a choice of the opponent is pending, or there are more than cap. */
int endgame_worlds(const State *s, int me, State *out, int cap);

#endif
