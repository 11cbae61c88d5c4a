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

static int32_t new_node(SearchResult *r, int32_t parent, int action, int player) {
    if (r->n == r->cap) {
        int32_t cap = r->cap ? 2 * r->cap : 4096;
        SearchNode *nodes = realloc(r->nodes, (size_t)cap * sizeof *nodes);
        if (!nodes) {
            r->failed = 1;
            return -1;
        }
        r->nodes = nodes;
        r->cap = cap;
    }
    if (parent >= 0 && r->nodes[parent].kids < 0) { /* its first child: a row for its children */
        if (r->nkids == r->kids_cap) {
            int32_t cap = r->kids_cap ? 2 * r->kids_cap : 1024;
            int32_t(*kids)[NUM_ACTIONS] = realloc(r->kids, (size_t)cap * sizeof *kids);
            if (!kids) {
                r->failed = 1;
                return -1;
            }
            r->kids = kids;
            r->kids_cap = cap;
        }
        memset(r->kids[r->nkids], 0xff, sizeof r->kids[0]); /* every entry -1 */
        r->nodes[parent].kids = r->nkids++;
    }
    int32_t i = r->n++;
    SearchNode *node = &r->nodes[i];
    node->kids = -1;
    node->visits = node->avail = 0;
    node->reward = 0.0;
    node->action = (int8_t)action;
    node->player = (int8_t)player;
    if (parent >= 0) r->kids[r->nodes[parent].kids][action] = i;
    return i;
}

static inline int32_t child_of(const SearchResult *r, int32_t node, int action) {
    int32_t row = r->nodes[node].kids;
    return row < 0 ? -1 : r->kids[row][action];
}

/* _simulate: one simulation from the root's option `first`; the outcome (0, 1), or -1 out of memory */
static int simulate(Search *S, State *w, int first, uint64_t *rng) {
    SearchResult *r = S->r;
    const Ctx *x = &S->x;
    int32_t path[MAX_PATH];
    int np = 0;
    int32_t node = child_of(r, 0, first);
    if (node < 0 && (node = new_node(r, 0, first, S->me)) < 0) return -1;
    r->nodes[node].avail++;
    state_apply(w, x, first);
    path[np++] = node;
    while (w->nresults == S->round_index) {
        int8_t legal[NUM_ACTIONS], untried[NUM_ACTIONS];
        int32_t kids[NUM_ACTIONS];
        int n = state_legal(w, x, legal), nu = 0, player = w->player;
        for (int i = 0; i < n; i++) {
            kids[i] = child_of(r, node, legal[i]);
            if (kids[i] < 0) untried[nu++] = legal[i];
            else r->nodes[kids[i]].avail++;
        }
        if (nu) {
            int a = untried[(int)(rng_random(rng) * nu)];
            int32_t child = new_node(r, node, a, player);
            if (child < 0) return -1;
            r->nodes[child].avail = 1;
            state_apply(w, x, a);
            path[np++] = child;
            break;
        }
        int best = 0;
        double best_v = -1.0;
        for (int i = 0; i < n; i++) {
            const SearchNode *ch = &r->nodes[kids[i]];
            double v = ch->reward / ch->visits + S->c * sqrt(log((double)ch->avail) / ch->visits);
            if (v > best_v) best = i, best_v = v;
        }
        node = kids[best];
        state_apply(w, x, legal[best]);
        if (np == MAX_PATH) return -1;
        path[np++] = node;
    }
    if (w->nresults == S->round_index) {
        if (S->greedy > 0.0) placement_playout(w, x, rng, S->greedy);
        else random_playout(w, x, rng, 0);
    }
    int won = w->results[S->round_index][0] == S->me;
    for (int i = 0; i < np; i++) {
        SearchNode *nd = &r->nodes[path[i]];
        nd->visits++;
        nd->reward += nd->player == S->me ? won : 1 - won;
    }
    return won;
}

static double mean_of(const SearchResult *r, int action) {
    const SearchNode *n = &r->nodes[child_of(r, 0, action)];
    return n->reward / n->visits;
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
    if (new_node(r, -1, -1, -1) < 0) return -1;
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
    free(r->nodes);
    free(r->kids);
    for (int i = 0; i < r->nlegal; i++) free(r->outcomes[i]);
    memset(r, 0, sizeof *r);
}
