/* The worlds a player cannot tell apart: engine/state.py's Match.sample_world and _redeal_hidden, draw for
 * draw (the same random numbers give the same world). */
#include "core.h"
#include "rng.h"

/* Match.sample_world(player, rng, chance=True) on a copy: everything the player does not know dealt again */
void state_sample(State *s, int player, uint64_t *rng) {
    (void)rng_random(rng); /* the seed of later rounds, which a world of the current round never deals */
    int bit = 1 << player, opp = 1 - player;
    int choosing = s->phase == PH_MODE && s->player == opp;
    int pending_in_hand = s->pending >= 0 && cards_has(&s->hands[opp], s->pending);
    /* _opponent_pool: their hand, with the card they are about to play */
    Cards pool = s->hands[opp];
    if (choosing) cards_append(&pool, s->active);
    /* hidden_from: the cards whose place the player does not know, sorted */
    uint32_t hidden_mask = 0, known_mask = 0;
    for (int i = 0; i < pool.n; i++) {
        int c = pool.c[i];
        if (s->known[c] & bit) known_mask |= 1u << c;
        else hidden_mask |= 1u << c;
    }
    for (int i = 0; i < s->deck.n; i++)
        if (!(s->known[s->deck.c[i]] & bit)) hidden_mask |= 1u << s->deck.c[i];
    if (s->artifact >= 0) hidden_mask |= 1u << s->artifact;
    int8_t hidden[NUM_CARDS];
    int n = 0;
    for (uint32_t m = hidden_mask; m; m &= m - 1) hidden[n++] = (int8_t)__builtin_ctz(m);
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rng_random(rng) * (i + 1));
        int8_t tmp = hidden[i];
        hidden[i] = hidden[j];
        hidden[j] = tmp;
    }
    /* their hand: the cards the player knows, then as many hidden cards as it holds besides */
    int k = pool.n - __builtin_popcount(known_mask);
    uint32_t hand_mask = known_mask;
    for (int i = 0; i < k; i++) hand_mask |= 1u << hidden[i];
    for (int i = 0; i < s->deck.n; i++)
        if (!(s->known[s->deck.c[i]] & bit)) s->deck.c[i] = hidden[k++];
    if (s->artifact >= 0) s->artifact = hidden[k];
    for (int i = 0; i < n; i++) s->known[hidden[i]] = 0;
    Cards hand;
    hand.n = 0;
    for (uint32_t m = hand_mask; m; m &= m - 1) hand.c[hand.n++] = (int8_t)__builtin_ctz(m);
    if (choosing) { /* which card of their hand they chose is theirs to know */
        int i = (int)(rng_random(rng) * hand.n);
        s->active = hand.c[i];
        cards_remove_at(&hand, i);
    }
    s->hands[opp] = hand;
    for (int i = 0; i < hand.n; i++) s->known[hand.c[i]] |= (uint8_t)(1 << opp);
    if (pending_in_hand) s->pending = hand.c[(int)(rng_random(rng) * hand.n)];
    if (s->revealed.n && s->player == opp && s->ekind != EK_NONE && !effect_public_choice(s->ekind, s->step)) {
        int depth = s->revealed.n; /* their Search shows them the top cards of the (re-dealt) deck */
        for (int i = 0; i < depth; i++) {
            int c = s->deck.c[s->deck.n - 1 - i];
            s->revealed.c[i] = (int8_t)c;
            s->known[c] = (uint8_t)(1 << opp);
        }
    }
}
