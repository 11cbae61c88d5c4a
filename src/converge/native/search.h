/* The strong search on the native core: converge/bots/search.py's _part, draw for draw (see that module for
 * what the search does and why). */
#ifndef CONVERGE_SEARCH_H
#define CONVERGE_SEARCH_H

#include "core.h"

typedef struct {
    int32_t kids; /* its row of children in SearchResult.kids (-1: no child yet) */
    int32_t visits, avail;
    double reward; /* for the player who chose the edge into this node */
    int8_t action, player;
} SearchNode;

typedef struct {
    SearchNode *nodes; /* nodes[0] is the root */
    int32_t n, cap;
    int32_t (*kids)[NUM_ACTIONS]; /* a row for each node with children: the child of each action, or -1 */
    int32_t nkids, kids_cap;
    int nlegal;
    int8_t legal[NUM_ACTIONS];
    uint8_t *outcomes[NUM_ACTIONS]; /* per root option, its outcome in each sweep: 0, 1 or 2 (not in it) */
    int32_t sweeps, sweeps_cap;
    int nfinal;
    int8_t finalists[NUM_ACTIONS];
    long long done; /* simulations played */
    int failed;     /* out of memory */
} SearchResult;

/* One part of a search from `root` (a state whose decision is `me`'s), with `simulations` and `seed`. Returns
 * 0, or -1 when memory ran out. Touches no Python object: callers release the GIL. */
int run_search(const State *root, const Tables *t, int me, long long simulations, uint64_t seed,
               double exploration, double greedy, SearchResult *out);
void search_free(SearchResult *r);

#endif
