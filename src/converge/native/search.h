/* The strong search on the native core: converge/bots/search.py's _part, draw for draw (see that module for
 * what the search does and why). */
#ifndef CONVERGE_SEARCH_H
#define CONVERGE_SEARCH_H

#include "core.h"

/* The tree is stored by edges: an edge is an action from a node, with the statistics of the node it leads to
 * (the search's _Node), and a node's edges lie side by side in the edge array, in increasing order of action,
 * so that looking one up is a bit count and a node's choices share a few cache lines. */
typedef struct {
    int32_t block;               /* the edges of the node it leads to (-1: none yet) */
    int32_t avail, visits, wins; /* wins: for the player who chose it (its reward, always a whole number) */
    int8_t action, player;
} Edge;

typedef struct {
    uint32_t mask; /* the actions that have an edge */
    int32_t first; /* where its edges start in the edge array */
    uint8_t n, cap;
} Block;

typedef struct {
    Block *blocks; /* blocks[0] is the root's */
    int32_t nblocks, blocks_cap;
    Edge *edges;
    int32_t nedges, edges_cap;
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
