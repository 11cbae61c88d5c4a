/* Exact endgames (see solve.h): the worlds of an empty deck, each solved by a minimax with a transposition
 * table, and the check that one way of playing wins in all of them. */
#include <stdlib.h>

#include "solve.h"

/* ---------------------------------------------------------------- keys */

typedef struct {
    uint64_t h1, h2;
} Hash;

static inline void mix(Hash *h, uint64_t w) {
    h->h1 = (h->h1 ^ w) * 0x100000001B3ull;
    h->h1 ^= h->h1 >> 29;
    h->h2 = (h->h2 + w) * 0x9E3779B97F4A7C15ull;
    h->h2 ^= h->h2 >> 31;
}

static uint64_t finish(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t card_bits(const State *s, int c) {
    return (uint64_t)s->skill[c] | (uint64_t)s->rank[c] << 2 | (uint64_t)(s->guard[c] + 1) << 5
           | (uint64_t)s->recalled[c] << 7;
}

static void mix_temp(Hash *h, const State *s) {
    for (int i = 0; i < s->ntemp; i++) {
        uint64_t w = 0;
        for (int j = 0; j < 5; j++) w = w << 8 | (uint8_t)s->temp[i][j];
        mix(h, w);
    }
}

/* Everything the rules can still tell apart in a round whose deck is empty: the order within a zone never
 * matters then (legal actions are sorted, scores are sums), nor do events, knowledge or the turn's number. */
static Hash state_key(const State *s) {
    Hash h = {0x6A09E667F3BCC908ull, 0xBB67AE8584CAA73Bull};
    mix(&h, cards_mask(&s->hands[0]) | (uint64_t)cards_mask(&s->hands[1]) << 32);
    mix(&h, cards_mask(&s->factions[0]) | (uint64_t)cards_mask(&s->factions[1]) << 32);
    mix(&h, cards_mask(&s->goals) | (uint64_t)cards_mask(&s->discard) << 32);
    mix(&h, cards_mask(&s->deck) | (uint64_t)(s->deck.n) << 32 | (uint64_t)(uint8_t)s->artifact << 40);
    for (int c = 0; c < NUM_CARDS; c += 8) {
        uint64_t w = 0;
        for (int j = c; j < c + 8 && j < NUM_CARDS; j++) w = w << 8 | card_bits(s, j);
        mix(&h, w);
    }
    mix_temp(&h, s);
    mix(&h, (uint64_t)(uint8_t)s->phase | (uint64_t)(uint8_t)s->player << 8 | (uint64_t)(uint8_t)s->turn_step << 16
                | (uint64_t)(uint8_t)s->lead << 24 | (uint64_t)(uint8_t)s->holder << 32
                | (uint64_t)(uint8_t)s->active << 40 | (uint64_t)s->nresults << 48);
    mix(&h, (uint64_t)(uint8_t)s->ekind | (uint64_t)(uint8_t)s->ecard << 8 | (uint64_t)(uint8_t)s->step << 16
                | (uint64_t)(uint8_t)s->remaining << 24 | (uint64_t)(uint8_t)s->pending << 32
                | (uint64_t)cards_mask(&s->picked) << 40);
    for (int i = 0; i < s->revealed.n; i++) mix(&h, (uint64_t)(uint8_t)s->revealed.c[i] | 0x100u);
    h.h1 = finish(h.h1);
    h.h2 = finish(h.h2) | 1; /* never 0: (0, 0) marks an empty entry */
    return h;
}

/* What `me` sees of a state (its observation, without the events): equal for states `me` cannot tell apart.
 * It leaves out what the opponent alone knows: their unknown cards, the card they are choosing how to play, a
 * card pending in their effect. */
static Hash seen_by(const State *s, int me) {
    Hash h = {0x3C6EF372FE94F82Bull, 0xA54FF53A5F1D36F1ull};
    int opp = 1 - me, bit = 1 << me, theirs = s->player == opp;
    uint32_t known_there = 0;
    for (int i = 0; i < s->hands[opp].n; i++)
        if (s->known[s->hands[opp].c[i]] & bit) known_there |= 1u << s->hands[opp].c[i];
    mix(&h, cards_mask(&s->hands[me]) | (uint64_t)known_there << 32);
    mix(&h, (uint64_t)s->hands[opp].n | (uint64_t)s->deck.n << 8);
    mix(&h, cards_mask(&s->factions[0]) | (uint64_t)cards_mask(&s->factions[1]) << 32);
    mix(&h, cards_mask(&s->goals) | (uint64_t)cards_mask(&s->discard) << 32);
    uint32_t shown = cards_mask(&s->factions[0]) | cards_mask(&s->factions[1]) | cards_mask(&s->goals)
                     | cards_mask(&s->discard) | cards_mask(&s->hands[me]);
    for (int c = 0; c < NUM_CARDS; c++)
        if (shown >> c & 1) mix(&h, (uint64_t)c << 8 | card_bits(s, c));
    mix_temp(&h, s);
    int effect = s->phase == PH_EFFECT;
    int active = !theirs || effect ? s->active : -2; /* the card they are choosing how to play is theirs */
    mix(&h, (uint64_t)(uint8_t)s->phase | (uint64_t)(uint8_t)s->player << 8 | (uint64_t)(uint8_t)s->turn_step << 16
                | (uint64_t)(uint8_t)s->lead << 24 | (uint64_t)(uint8_t)s->holder << 32
                | (uint64_t)(uint8_t)active << 40 | (uint64_t)s->nresults << 48);
    if (s->nresults) mix(&h, (uint64_t)(uint8_t)s->results[s->nresults - 1][0]);
    if (effect) {
        int open = !theirs || effect_public_choice(s->ekind, s->step);
        mix(&h, (uint64_t)(uint8_t)s->ekind | (uint64_t)(uint8_t)s->ecard << 8 | (uint64_t)(uint8_t)s->step << 16
                    | (uint64_t)(uint8_t)s->remaining << 24 | (uint64_t)cards_mask(&s->picked) << 32);
        if (open) {
            mix(&h, (uint64_t)(uint8_t)s->pending | 0x200u);
            for (int i = 0; i < s->revealed.n; i++) mix(&h, (uint64_t)(uint8_t)s->revealed.c[i] | 0x100u);
        }
    }
    return h;
}

/* ---------------------------------------------------------------- the solver */

int solver_init(Solver *S, const Ctx *x, int me, int round_index, long long budget) {
    size_t size = (size_t)1 << 20;
    memset(S, 0, sizeof *S);
    S->x = x;
    S->me = me;
    S->round_index = round_index;
    S->budget = budget;
    S->table = calloc(size, sizeof *S->table);
    S->mask = size - 1;
    return S->table ? 0 : -1;
}

void solver_free(Solver *S) {
    free(S->table);
    S->table = NULL;
}

static int ended(const Solver *S, const State *s) { return s->nresults > S->round_index || s->phase == PH_OVER; }

static int outcome(const Solver *S, const State *s) { return s->results[S->round_index][0] == S->me; }

int solve_world(Solver *S, const State *s) {
    if (ended(S, s)) return outcome(S, s);
    if (S->aborted || ++S->nodes > S->budget || S->ply >= MAX_PLIES) {
        S->aborted = 1;
        return 0;
    }
    Hash key = state_key(s);
    TTEntry *slot = &S->table[key.h1 & S->mask];
    if (slot->k1 == key.h1 && slot->k2 == key.h2) return slot->value;
    int8_t legal[NUM_ACTIONS];
    int n = state_legal(s, S->x, legal), mine = s->player == S->me;
    /* alpha-beta on a won-or-lost round: stop at the first reply that decides it for the player to move; the
     * replies tried in the order of the scores they leave, the mover's best first */
    State next[NUM_ACTIONS];
    int order[NUM_ACTIONS], margin[NUM_ACTIONS], value = !mine, m = 0;
    for (int i = 0; i < n; i++) {
        next[i] = *s;
        state_apply(&next[i], S->x, legal[i]);
        if (ended(S, &next[i])) {
            if (outcome(S, &next[i]) == mine) {
                value = mine;
                goto store;
            }
            continue; /* a round lost for the mover: no need to look further */
        }
        int s0, s1;
        state_scores(&next[i], S->x->t, &s0, &s1);
        int mover = s->player;
        margin[i] = mover == 0 ? s0 - s1 : s1 - s0;
        int j = m++;
        for (; j > 0 && margin[order[j - 1]] < margin[i]; j--) order[j] = order[j - 1];
        order[j] = i;
    }
    for (int k = 0; k < m; k++) {
        S->ply++;
        int v = solve_world(S, &next[order[k]]);
        S->ply--;
        if (S->aborted) return 0;
        if (v == mine) {
            value = v;
            break;
        }
    }
store:
    slot->k1 = key.h1; /* (the table does not move: the slot is the same one) */
    slot->k2 = key.h2;
    slot->value = (int8_t)value;
    return value;
}

static int compare_hash(const void *a, const void *b) {
    const Hash *x = a, *y = b;
    if (x->h1 != y->h1) return x->h1 < y->h1 ? -1 : 1;
    if (x->h2 != y->h2) return x->h2 < y->h2 ? -1 : 1;
    return 0;
}

typedef struct {
    Hash seen;
    int index;
} Seen;

static int compare_seen(const void *a, const void *b) {
    const Seen *x = a, *y = b;
    int c = compare_hash(&x->seen, &y->seen);
    return c ? c : x->index - y->index;
}

int wins_in_every_case(Solver *S, const State *worlds, int n) {
    if (ended(S, &worlds[0])) {
        for (int i = 0; i < n; i++)
            if (!outcome(S, &worlds[i])) return 0;
        return 1;
    }
    for (int i = 0; i < n; i++) /* a world lost with everything seen is lost */
        if (!solve_world(S, &worlds[i]) || S->aborted) return 0;
    if (n == 1) return 1; /* one world: seeing everything changes nothing */
    if (++S->nodes > S->budget) {
        S->aborted = 1;
        return 0;
    }
    int8_t legal[NUM_ACTIONS];
    if (worlds[0].player == S->me) { /* one choice for every world: they look the same */
        int nl = state_legal(&worlds[0], S->x, legal), found = 0;
        State *next = malloc((size_t)n * sizeof *next);
        if (!next) {
            S->aborted = 1;
            return 0;
        }
        for (int k = 0; k < nl && !found && !S->aborted; k++) {
            for (int i = 0; i < n; i++) {
                next[i] = worlds[i];
                state_apply(&next[i], S->x, legal[k]);
            }
            found = wins_in_every_case(S, next, n);
        }
        free(next);
        return found && !S->aborted;
    }
    /* the opponent's choice, in each world: every outcome must be won, grouped by what `me` sees after it */
    int cap = n * NUM_ACTIONS, m = 0, won = 1;
    State *next = malloc((size_t)cap * sizeof *next);
    Seen *seen = malloc((size_t)cap * sizeof *seen);
    State *group = malloc((size_t)cap * sizeof *group);
    if (!next || !seen || !group) {
        free(next), free(seen), free(group);
        S->aborted = 1;
        return 0;
    }
    for (int i = 0; i < n; i++) {
        int nl = state_legal(&worlds[i], S->x, legal);
        for (int k = 0; k < nl; k++) {
            next[m] = worlds[i];
            state_apply(&next[m], S->x, legal[k]);
            seen[m].seen = seen_by(&next[m], S->me);
            seen[m].index = m;
            m++;
        }
    }
    qsort(seen, (size_t)m, sizeof *seen, compare_seen);
    for (int start = 0; start < m && won;) {
        int end = start, g = 0;
        while (end < m && !compare_hash(&seen[end].seen, &seen[start].seen)) group[g++] = next[seen[end++].index];
        won = wins_in_every_case(S, group, g) && !S->aborted;
        start = end;
    }
    free(next), free(seen), free(group);
    return won;
}

/* ---------------------------------------------------------------- the worlds of an empty deck */

int endgame_worlds(const State *s, int me, State *out, int cap) {
    int opp = 1 - me, bit = 1 << me;
    if (s->deck.n || s->phase == PH_DEAL || s->phase == PH_START || s->phase == PH_OVER) return -1;
    if (s->player == opp && (s->phase == PH_MODE || s->phase == PH_EFFECT)) return -1; /* a choice of theirs */
    uint32_t hidden = 0, known = 0;
    for (int i = 0; i < s->hands[opp].n; i++) {
        int c = s->hands[opp].c[i];
        if (s->known[c] & bit) known |= 1u << c;
        else hidden |= 1u << c;
    }
    if (s->artifact >= 0) hidden |= 1u << s->artifact;
    int8_t cards[NUM_CARDS];
    int n = 0, k = s->hands[opp].n - __builtin_popcount(known);
    for (uint32_t m = hidden; m; m &= m - 1) cards[n++] = (int8_t)__builtin_ctz(m);
    if (n - k != (s->artifact >= 0)) return -1;
    /* every set of k of the n hidden cards is their hand; the card left over is the artifact */
    int count = 0;
    for (uint32_t pick = 0; pick < (1u << n); pick++) {
        if (__builtin_popcount(pick) != k) continue;
        if (count == cap) return -1;
        State *w = &out[count++];
        *w = *s;
        uint32_t hand = known;
        for (int i = 0; i < n; i++) {
            int c = cards[i];
            w->known[c] = 0;
            if (pick >> i & 1) hand |= 1u << c;
            else w->artifact = (int8_t)c;
        }
        w->hands[opp].n = 0;
        for (uint32_t m = hand; m; m &= m - 1) {
            int c = __builtin_ctz(m);
            cards_append(&w->hands[opp], c);
            w->known[c] |= (uint8_t)(1 << opp);
        }
    }
    return count;
}
