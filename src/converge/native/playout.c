/* Playouts to the end of the current round, draw for draw as engine/state.py's Match.random_playout (one
 * round) and Match.placement_playout. */
#include "core.h"
#include "rng.h"

static int round_goes_on(const State *s, int round_index) {
    return s->phase != PH_OVER && s->nresults == round_index;
}

void random_playout(State *s, const Ctx *x, uint64_t *rng, int decline) {
    int round_index = s->nresults;
    while (round_goes_on(s, round_index)) state_apply(s, x, state_random_action(s, x, rng_random(rng), decline));
}

/* With probability greedy, a card to choose is played with the placement (declare, mine, theirs) of the best
 * end-of-turn standing for its player; else a uniformly random action, never "done" while another is legal. */
void placement_playout(State *s, const Ctx *x, uint64_t *rng, double greedy) {
    static const int modes[3] = {A_DECLARE, A_MINE, A_THEIRS};
    const Tables *t = x->t;
    int round_index = s->nresults;
    while (round_goes_on(s, round_index)) {
        if (s->phase == PH_SELECT && rng_random(rng) < greedy) {
            int p = s->player, second = s->turn_step == 1;
            int best_card = -1, best_mode = -1, best_v = -1000000000;
            /* Match.scores with the card added, worked out from each faction's counts and each goal's value
             * without the card (the same numbers, without counting every faction again) */
            Stats base[2];
            faction_stats(s, &s->factions[0], &base[0]);
            faction_stats(s, &s->factions[1], &base[1]);
            int ng = s->goals.n, value[2][NUM_CARDS], kind[NUM_CARDS], arg[NUM_CARDS], stars[NUM_CARDS];
            int base_s[2] = {0, 0};
            for (int i = 0; i < ng; i++) {
                int g = s->goals.c[i], w0, w1;
                kind[i] = t->goal_kind[g], arg[i] = t->goal_arg[g], stars[i] = t->goal_stars[g];
                value[0][i] = goal_value(kind[i], arg[i], &base[0]);
                value[1][i] = goal_value(kind[i], arg[i], &base[1]);
                goal_winners_of(kind[i], value[0][i], value[1][i], &w0, &w1);
                base_s[0] += stars[i] * w0;
                base_s[1] += stars[i] * w1;
            }
            const Cards *hand = &s->hands[p];
            for (int i = 0; i < hand->n; i++) {
                int card = hand->c[i];
                for (int m = 0; m < 3; m++) {
                    int mode = modes[m], sc[2];
                    if (mode == A_DECLARE) { /* a new goal, judged on the factions as they are */
                        int w0 = 0, w1 = 0;
                        goal_winners(t->goal_kind[card], t->goal_arg[card], &base[0], &base[1], &w0, &w1);
                        sc[0] = base_s[0] + t->goal_stars[card] * w0;
                        sc[1] = base_s[1] + t->goal_stars[card] * w1;
                    } else { /* one faction grows: its values change, the other's stay */
                        int f = mode == A_MINE ? p : 1 - p;
                        Stats grown = base[f];
                        stats_add(&grown, s->skill[card], s->rank[card]);
                        sc[0] = sc[1] = 0;
                        for (int k = 0; k < ng; k++) {
                            int v[2], w[2];
                            v[f] = goal_value(kind[k], arg[k], &grown);
                            v[1 - f] = value[1 - f][k];
                            goal_winners_of(kind[k], v[0], v[1], &w[0], &w[1]);
                            sc[0] += stars[k] * w[0];
                            sc[1] += stars[k] * w[1];
                        }
                    }
                    int margin = p == 0 ? sc[0] - sc[1] : sc[1] - sc[0], v = margin;
                    if (second) v += margin < 0 ? -1000 : margin > 0 ? 1000 : 0;
                    v = v * 8 + (int)(rng_random(rng) * 8); /* ties broken at random */
                    if (v > best_v) best_card = card, best_mode = mode, best_v = v;
                }
            }
            state_apply(s, x, best_card);
            state_apply(s, x, best_mode);
        } else {
            state_apply(s, x, state_random_action(s, x, rng_random(rng), 0));
        }
    }
}
