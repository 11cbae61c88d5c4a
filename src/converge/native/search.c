/* The strong search: converge/bots/search.py's _part and _simulate on the native core, draw for draw. */
#include <math.h>
#include <stdlib.h>

#include "search.h"
#include "rng.h"

#define MAX_PATH 2048

typedef struct {
    SearchResult *r;
    Ctx x;
    int me, round_index;
    double c, greedy;
} Search;

static int32_t new_block(SearchResult *r, int cap) {
    if (r->nblocks == r->blocks_cap) {
        int32_t n = r->blocks_cap ? 2 * r->blocks_cap : 4096;
        Block *blocks = realloc(r->blocks, (size_t)n * sizeof *blocks);
        if (!blocks) return r->failed = 1, -1;
        r->blocks = blocks;
        r->blocks_cap = n;
    }
    if (r->nedges + cap > r->edges_cap) {
        int32_t n = r->edges_cap ? 2 * r->edges_cap : 16384;
        while (n < r->nedges + cap) n *= 2;
        Edge *edges = realloc(r->edges, (size_t)n * sizeof *edges);
        if (!edges) return r->failed = 1, -1;
        r->edges = edges;
        r->edges_cap = n;
    }
    Block *b = &r->blocks[r->nblocks];
    b->mask = 0;
    b->first = r->nedges;
    b->n = 0;
    b->cap = (uint8_t)cap;
    r->nedges += cap;
    return r->nblocks++;
}

static inline int32_t edge_of(const SearchResult *r, int32_t block, int action) {
    const Block *b = &r->blocks[block];
    if (!(b->mask >> action & 1)) return -1;
    return b->first + __builtin_popcount(b->mask & ((1u << action) - 1));
}

/* a new edge of `action` from the node of `block`, for `player` */
static int32_t add_edge(SearchResult *r, int32_t block, int action, int player) {
    Block *b = &r->blocks[block];
    if (b->n == b->cap) { /* moved to a larger place (the old one is left unused) */
        int cap = b->cap * 2 > NUM_ACTIONS ? NUM_ACTIONS : b->cap * 2;
        int32_t from = b->first, n = b->n;
        if (new_block(r, cap) < 0) return -1;
        r->nblocks--; /* (only its edges were wanted) */
        b = &r->blocks[block];
        memcpy(&r->edges[r->blocks[r->nblocks].first], &r->edges[from], (size_t)n * sizeof(Edge));
        b->first = r->blocks[r->nblocks].first;
        b->cap = (uint8_t)cap;
    }
    int at = __builtin_popcount(b->mask & ((1u << action) - 1));
    Edge *e = &r->edges[b->first + at];
    memmove(e + 1, e, (size_t)(b->n - at) * sizeof(Edge));
    e->block = -1;
    e->avail = e->visits = e->wins = 0;
    e->action = (int8_t)action;
    e->player = (int8_t)player;
    b->mask |= 1u << action;
    b->n++;
    return b->first + at;
}

/* _simulate: one simulation from the root's option `first`; the outcome (0, 1), or -1 out of memory */
static int simulate(Search *S, State *w, int first, uint64_t *rng) {
    SearchResult *r = S->r;
    const Ctx *x = &S->x;
    int32_t path[MAX_PATH];
    int np = 0;
    int32_t e = edge_of(r, 0, first);
    if (e < 0 && (e = add_edge(r, 0, first, S->me)) < 0) return -1;
    r->edges[e].avail++;
    state_apply(w, x, first);
    path[np++] = e;
    while (w->nresults == S->round_index) {
        int8_t legal[NUM_ACTIONS], untried[NUM_ACTIONS];
        int32_t kids[NUM_ACTIONS];
        int n = state_legal(w, x, legal), nu = 0, player = w->player;
        int32_t block = r->edges[e].block;
        for (int i = 0; i < n; i++) {
            kids[i] = block < 0 ? -1 : edge_of(r, block, legal[i]);
            if (kids[i] < 0) untried[nu++] = legal[i];
            else r->edges[kids[i]].avail++;
        }
        if (nu) {
            int a = untried[(int)(rng_random(rng) * nu)];
            if (block < 0) {
                if ((block = new_block(r, n < 4 ? 4 : n)) < 0) return -1;
                r->edges[e].block = block;
            }
            int32_t child = add_edge(r, block, a, player);
            if (child < 0) return -1;
            r->edges[child].avail = 1;
            state_apply(w, x, a);
            path[np++] = child;
            break;
        }
        int best = 0;
        double best_v = -1.0;
        for (int i = 0; i < n; i++) {
            const Edge *ch = &r->edges[kids[i]];
            double v = (double)ch->wins / ch->visits + S->c * sqrt(log((double)ch->avail) / ch->visits);
            if (v > best_v) best = i, best_v = v;
        }
        e = kids[best];
        state_apply(w, x, legal[best]);
        if (np == MAX_PATH) return -1;
        path[np++] = e;
    }
    if (w->nresults == S->round_index) {
        if (S->greedy > 0.0) placement_playout(w, x, rng, S->greedy);
        else random_playout(w, x, rng, 0);
    }
    int won = w->results[S->round_index][0] == S->me;
    for (int i = 0; i < np; i++) {
        Edge *ed = &r->edges[path[i]];
        ed->visits++;
        ed->wins += ed->player == S->me ? won : 1 - won;
    }
    return won;
}

static double mean_of(const SearchResult *r, int action) {
    const Edge *e = &r->edges[edge_of(r, 0, action)];
    return (double)e->wins / e->visits;
}

static int prefer(int action) { return action == A_DISCARD ? 0 : action == A_DECLARE ? 1 : 2; }

/* _rank_key's order: the better first */
static int better(const SearchResult *r, int a, int b) {
    double ma = mean_of(r, a), mb = mean_of(r, b);
    if (ma != mb) return ma > mb;
    if (prefer(a) != prefer(b)) return prefer(a) > prefer(b);
    return a < b;
}

static int add_sweep(SearchResult *r) {
    if (r->sweeps == r->sweeps_cap) {
        int32_t cap = r->sweeps_cap ? 2 * r->sweeps_cap : 1024;
        for (int i = 0; i < r->nlegal; i++) {
            uint8_t *o = realloc(r->outcomes[i], (size_t)cap);
            if (!o) return -1;
            r->outcomes[i] = o;
        }
        r->sweeps_cap = cap;
    }
    return r->sweeps++;
}

int run_search(const State *root, const Tables *t, int me, long long simulations, uint64_t seed,
               double exploration, double greedy, SearchResult *r) {
    memset(r, 0, sizeof *r);
    Search S = {r, {t, NULL, 0, NULL}, me, root->nresults, exploration, greedy};
    r->nlegal = state_legal(root, &S.x, r->legal);
    if (new_block(r, r->nlegal) < 0) return -1;
    int8_t survivors[NUM_ACTIONS];
    int ns = r->nlegal;
    memcpy(survivors, r->legal, (size_t)ns);
    int phases = 0;
    while ((1 << phases) < r->nlegal) phases++; /* ceil(log2(options)) */
    if (phases < 1) phases = 1;
    long long left = simulations;
    uint64_t master = seed;
    for (int phase = 0; phase < phases; phase++) {
        long long per = left / ((long long)(phases - phase) * ns);
        if (per < 1) per = 1;
        for (long long k = 0; k < per; k++) {
            uint64_t rng = rng_next(&master);
            State world = *root;
            state_sample(&world, me, &rng);
            int sweep = add_sweep(r);
            if (sweep < 0) return -1;
            for (int i = 0, j = 0; i < r->nlegal; i++) {
                int a = r->legal[i];
                if (j < ns && survivors[j] == a) {
                    State w = world;
                    uint64_t stream = rng;
                    int won = simulate(&S, &w, a, &stream);
                    if (won < 0) return -1;
                    r->outcomes[i][sweep] = (uint8_t)won;
                    r->done++;
                    j++;
                } else {
                    r->outcomes[i][sweep] = 2;
                }
            }
        }
        left -= per * ns;
        if (phase < phases - 1) { /* the better half goes on, in increasing order of action */
            int8_t ranked[NUM_ACTIONS];
            memcpy(ranked, survivors, (size_t)ns);
            for (int i = 1; i < ns; i++)
                for (int j = i; j > 0 && better(r, ranked[j], ranked[j - 1]); j--) {
                    int8_t tmp = ranked[j];
                    ranked[j] = ranked[j - 1];
                    ranked[j - 1] = tmp;
                }
            ns = (ns + 1) / 2;
            uint32_t keep = 0;
            for (int i = 0; i < ns; i++) keep |= 1u << ranked[i];
            for (int i = 0, k = 0; i < r->nlegal; i++)
                if (keep >> r->legal[i] & 1) survivors[k++] = r->legal[i];
        }
    }
    r->nfinal = ns;
    memcpy(r->finalists, survivors, (size_t)ns);
    return r->failed ? -1 : 0;
}

void search_free(SearchResult *r) {
    free(r->blocks);
    free(r->edges);
    for (int i = 0; i < r->nlegal; i++) free(r->outcomes[i]);
    memset(r, 0, sizeof *r);
}
