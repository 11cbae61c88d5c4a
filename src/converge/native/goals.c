/* Goals (T5): one faction's counts and the fifteen built-in goal kinds, as engine/goals/base.py and
 * engine/goals/kinds.py define them. */
#include "core.h"

#define CANNOT_WIN (-1000)

void stats_add(Stats *st, int skill, int rank) {
    st->count[skill]++;
    st->total += rank;
    st->per_rank[rank]++;
    if (rank > st->high[skill]) st->high[skill] = rank;
    if (rank < st->low[skill]) st->low[skill] = rank;
    st->size++;
}

/* FactionStats.__init__ */
void faction_stats(const State *s, const Cards *f, Stats *st) {
    memset(st, 0, sizeof *st);
    for (int i = 0; i < 3; i++) st->low[i] = 7;
    for (int i = 0; i < f->n; i++) stats_add(st, s->skill[f->c[i]], s->rank[f->c[i]]);
}

static int most_of_one_rank(const Stats *st) {
    int best = 0;
    for (int r = 1; r <= 6; r++)
        if (st->per_rank[r] > best) best = st->per_rank[r];
    return best;
}

static int most_of_one_skillset(const Stats *st) {
    int best = st->count[0];
    if (st->count[1] > best) best = st->count[1];
    if (st->count[2] > best) best = st->count[2];
    return best;
}

static int longest_run(const Stats *st) {
    int run = 0, best = 0;
    for (int r = 1; r <= 6; r++) {
        run = st->per_rank[r] ? run + 1 : 0;
        if (run > best) best = run;
    }
    return best;
}

static int distinct_ranks(const Stats *st) {
    int out = 0;
    for (int r = 1; r <= 6; r++) out += st->per_rank[r] > 0;
    return out;
}

static int distinct_skillsets(const Stats *st) {
    return (st->count[0] > 0) + (st->count[1] > 0) + (st->count[2] > 0);
}

/* GoalKind.single_winner */
int goal_single_winner(int kind) { return kind <= GK_FEWEST_CARDS; }

/* GoalKind.value of each built-in kind */
int goal_value(int kind, int arg, const Stats *st) {
    switch (kind) {
    case GK_HIGHEST_SKILLSET: return arg >= 0 && st->count[arg] ? st->high[arg] : CANNOT_WIN;
    case GK_LOWEST_SKILLSET: return arg >= 0 && st->count[arg] ? -st->low[arg] : CANNOT_WIN;
    case GK_MOST_SKILLSET: return arg >= 0 ? st->count[arg] : 0;
    case GK_FEWEST_SKILLSET: return arg >= 0 ? -st->count[arg] : 0;
    case GK_MOST_SKILLSETS: return distinct_skillsets(st);
    case GK_HIGHEST_RANK_TOTAL: return st->total;
    case GK_LOWEST_RANK_TOTAL: return st->size ? -st->total : CANNOT_WIN;
    case GK_MOST_CARDS: return st->size;
    case GK_FEWEST_CARDS: return -st->size;
    case GK_CONSECUTIVE_RANKS: return longest_run(st) >= arg;
    case GK_DIFFERENT_RANKS: return distinct_ranks(st) >= arg;
    case GK_SAME_RANK: return most_of_one_rank(st) >= arg;
    case GK_ONE_SKILLSET: return most_of_one_skillset(st) >= arg;
    case GK_EACH_SKILLSET: return distinct_skillsets(st) == 3;
    case GK_RANK_TOTAL: return st->total >= arg;
    default: return 0;
    }
}

/* goal_winners, from the two factions' values */
void goal_winners_of(int kind, int v0, int v1, int *w0, int *w1) {
    if (goal_single_winner(kind)) {
        *w0 = v0 > v1;
        *w1 = v1 > v0;
    } else {
        *w0 = v0 > 0;
        *w1 = v1 > 0;
    }
}

void goal_winners(int kind, int arg, const Stats *st0, const Stats *st1, int *w0, int *w1) {
    goal_winners_of(kind, goal_value(kind, arg, st0), goal_value(kind, arg, st1), w0, w1);
}
