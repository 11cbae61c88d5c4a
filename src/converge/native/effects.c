/* The nine built-in effect kinds: each case below mirrors the methods of its module in engine/effects/
 * (picks, optional, begin, next_decision, targets, act, public_choice); the arguments are the compiled ones
 * (EffectKind.compile), in the order of each kind's parameters. */
#include "core.h"

/* Convert's skillset modes and durations (engine/effects/convert.py) */
enum { CONVERT_OWN = 0, CONVERT_CHOOSE = 1, CONVERT_KEEP = 2 };

static int clamp_rank(int r) { return r < 1 ? 1 : r > 6 ? 6 : r; }

int effect_picks(int kind, const int8_t *args) {
    switch (kind) {
    case EK_CONVERT: case EK_ASSEMBLE: case EK_RECALL: case EK_GUARD: case EK_EXPAND: case EK_HEAL:
        return args[0]; /* "count" */
    default: return 1;
    }
}

int effect_optional(int kind, const int8_t *args) {
    switch (kind) {
    case EK_CONVERT: case EK_HEAL: return args[0] > 1; /* "up to N" */
    case EK_RECALL: case EK_GUARD: case EK_TRADE: case EK_EXPAND: return 1;
    default: return 0;
    }
}

int effect_public_choice(int kind, int step) {
    (void)step;
    return kind == EK_ASSEMBLE; /* the card Assemble shows, it shows to both */
}

void effect_begin(State *s, const Ctx *x) {
    if (s->ekind != EK_SEARCH) return;
    /* Search.begin: the searcher looks at the top cards, top first */
    int p = s->player;
    int depth = s->args[0] < s->deck.n ? s->args[0] : s->deck.n;
    s->revealed.n = (uint8_t)depth;
    for (int i = 0; i < depth; i++) s->revealed.c[i] = s->deck.c[s->deck.n - 1 - i];
    log_event(x, EV_SEARCH, PUBLIC, p, -1, depth, 0);
    for (int i = 0; i < depth; i++) {
        int c = s->revealed.c[i];
        s->known[c] = (uint8_t)(1 << p);
        log_event(x, EV_SAW, p, p, c, i, 0);
    }
}

int effect_next_decision(State *s, const Ctx *x) {
    if (s->ekind == EK_ASSEMBLE) { /* Assemble.next_decision: reveal the top card to both */
        if (!s->deck.n) return 0;
        int card = s->deck.c[s->deck.n - 1];
        s->pending = (int8_t)card;
        s->revealed.n = 1;
        s->revealed.c[0] = (int8_t)card;
        s->known[card] = BOTH_KNOW;
        log_event(x, EV_REVEAL, PUBLIC, s->player, card, 0, 0);
        s->step = ST_FACTION;
        return 1;
    }
    s->step = ST_TARGET;
    return effect_targets(s, x, ST_TARGET) != 0;
}

static uint32_t movable_of(const State *s, const Cards *f, int p) {
    uint32_t m = 0;
    for (int i = 0; i < f->n; i++)
        if (movable(s, f->c[i], p)) m |= 1u << f->c[i];
    return m;
}

static uint32_t trade_targets(const State *s, int step) {
    int p = s->player, with_hand = s->args[0], between = s->args[1];
    uint32_t hand = cards_mask(&s->hands[p]);
    uint32_t mov[2] = {movable_of(s, &s->factions[0], p), movable_of(s, &s->factions[1], p)};
    if (step == ST_SECOND) {
        int first = s->pending;
        if (hand >> first & 1) return mov[0] | mov[1];
        int f = cards_has(&s->factions[0], first) ? 0 : 1;
        return (with_hand ? hand : 0) | (between ? mov[1 - f] : 0);
    }
    uint32_t out = 0;
    if (with_hand && hand && (mov[0] || mov[1])) out |= hand;
    for (int f = 0; f < 2; f++)
        if ((with_hand && hand) || (between && mov[1 - f])) out |= mov[f];
    return out;
}

uint32_t effect_targets(const State *s, const Ctx *x, int step) {
    const Tables *t = x->t;
    int p = s->player;
    uint32_t out = 0;
    switch (s->ekind) {
    case EK_CONVERT: /* a card in a faction the opponent has not guarded, not picked yet */
        out = movable_of(s, &s->factions[0], p) | movable_of(s, &s->factions[1], p);
        return out & ~cards_mask(&s->picked);
    case EK_RECALL: {
        int max_rank = s->args[1];
        for (int i = 0; i < s->discard.n; i++) {
            int c = s->discard.c[i];
            if (t->printed_rank[c] <= max_rank && !s->recalled[c]) out |= 1u << c;
        }
        if (s->args[2])
            for (int f = 0; f < 2; f++)
                for (int i = 0; i < s->factions[f].n; i++) {
                    int c = s->factions[f].c[i];
                    if (s->rank[c] <= max_rank && !s->recalled[c] && movable(s, c, p)) out |= 1u << c;
                }
        return out;
    }
    case EK_GUARD:
        for (int i = 0; i < s->factions[p].n; i++) {
            int c = s->factions[p].c[i];
            if (s->guard[c] != p) out |= 1u << c;
        }
        return out;
    case EK_SEARCH: return cards_mask(&s->revealed);
    case EK_TRADE: return trade_targets(s, step);
    case EK_EXPAND: return cards_mask(&s->hands[p]);
    case EK_STUDY: {
        int own = t->printed_skill[s->active], max_rank = s->args[0];
        for (int i = 0; i < s->discard.n; i++) {
            int c = s->discard.c[i];
            if (t->printed_skill[c] != own && t->printed_rank[c] <= max_rank && t->effect_kind[c] != EK_STUDY)
                out |= 1u << c; /* a study never studies a study */
        }
        return out;
    }
    case EK_HEAL:
        for (int i = 0; i < s->discard.n; i++) {
            int c = s->discard.c[i];
            if (t->printed_rank[c] <= s->args[1]) out |= 1u << c;
        }
        return out;
    default: return 0; /* Assemble decides factions only */
    }
}

/* one pick of "choose a card from source, then the faction it goes into" (pick_then_place) */
static void pick_then_place(State *s, const Ctx *x, int action, int source) {
    if (s->step == ST_TARGET) {
        s->pending = (int8_t)action;
        s->step = ST_FACTION;
        return;
    }
    move_card(s, x, s->pending, source, Z_FACTION + owner_of(s, action));
    s->pending = -1;
    s->step = ST_TARGET;
    s->remaining--;
    continue_effect(s, x);
}

/* Convert's _convert (C1, C5, C6) */
static void convert(State *s, const Ctx *x, int card, int new_skill) {
    int delta = s->args[2], temporary = s->args[3];
    int old_skill = s->skill[card], old_rank = s->rank[card];
    int new_rank = clamp_rank(old_rank + delta);
    s->skill[card] = (int8_t)new_skill;
    s->rank[card] = (int8_t)new_rank;
    if (temporary) {
        int8_t *tp = s->temp[s->ntemp++];
        tp[0] = (int8_t)card, tp[1] = (int8_t)old_skill, tp[2] = (int8_t)old_rank, tp[3] = (int8_t)new_skill;
        tp[4] = (int8_t)new_rank;
    } else if (s->ntemp) { /* a later permanent conversion is not undone when a temporary one ends */
        int keep = s->args[1] == CONVERT_KEEP, k = 0;
        for (int i = 0; i < s->ntemp; i++) {
            int8_t tp[5];
            memcpy(tp, s->temp[i], 5);
            if (tp[0] == card) {
                if (!keep) tp[1] = (int8_t)new_skill, tp[3] = (int8_t)new_skill;
                tp[2] = (int8_t)clamp_rank(tp[2] + delta);
                tp[4] = (int8_t)new_rank;
            }
            if (tp[1] != tp[3] || tp[2] != tp[4]) memcpy(s->temp[k++], tp, 5);
        }
        s->ntemp = (uint8_t)k;
    }
    log_event(x, EV_CONVERT, -1, s->player, card, new_skill, new_rank);
    cards_append(&s->picked, card);
    s->pending = -1;
    s->step = ST_TARGET;
    s->remaining--;
    continue_effect(s, x);
}

static void trade(State *s, const Ctx *x, int action) { /* Trade.act */
    if (s->step == ST_TARGET) {
        s->pending = (int8_t)action;
        s->step = ST_SECOND;
        return;
    }
    int p = s->player, first = s->pending, second = action;
    if (cards_has(&s->hands[p], second)) {
        int swap = first;
        first = second;
        second = swap;
    }
    if (cards_has(&s->hands[p], first)) { /* a hand card and a faction card change places */
        int f = Z_FACTION + faction_of(s, second);
        move_card(s, x, first, Z_HAND + p, f);
        move_card(s, x, second, f, Z_HAND + p);
    } else { /* two cards change factions */
        int fa = Z_FACTION + faction_of(s, first), fb = Z_FACTION + faction_of(s, second);
        move_card(s, x, first, fa, fb);
        move_card(s, x, second, fb, fa);
    }
    s->pending = -1;
    s->step = ST_TARGET;
    s->remaining = 0;
    continue_effect(s, x);
}

void effect_act(State *s, const Ctx *x, int action) {
    int p = s->player;
    switch (s->ekind) {
    case EK_CONVERT:
        if (s->step == ST_SKILLSET) {
            convert(s, x, s->pending, action - A_SKILLSET0);
            return;
        }
        if (s->args[1] == CONVERT_CHOOSE) {
            s->pending = (int8_t)action;
            s->step = ST_SKILLSET;
            return;
        }
        /* C3: "own" is the skillset of the card played (an Astropath's, when it studies a Convert) */
        convert(s, x, action, s->args[1] == CONVERT_OWN ? x->t->printed_skill[s->active] : s->skill[action]);
        return;
    case EK_ASSEMBLE:
        move_card(s, x, s->pending, Z_DECK, Z_FACTION + owner_of(s, action));
        s->pending = -1;
        s->revealed.n = 0;
        s->remaining--;
        continue_effect(s, x);
        return;
    case EK_RECALL: {
        int owner = faction_of(s, action);
        move_card(s, x, action, owner < 0 ? Z_DISCARD : Z_FACTION + owner, Z_HAND + p);
        s->recalled[action] = 1;
        s->remaining--;
        continue_effect(s, x);
        return;
    }
    case EK_GUARD:
        s->guard[action] = (int8_t)p;
        log_event(x, EV_GUARD, -1, p, action, 0, 0);
        s->remaining--;
        continue_effect(s, x);
        return;
    case EK_SEARCH:
        cards_remove(&s->deck, action);
        cards_append(&s->hands[p], action);
        log_event(x, EV_TOOK, p, p, action, 0, 0);
        s->remaining = 0;
        continue_effect(s, x);
        return;
    case EK_TRADE: trade(s, x, action); return;
    case EK_EXPAND: pick_then_place(s, x, action, Z_HAND + p); return;
    case EK_STUDY: resolve_effect_of(s, x, action); return;
    case EK_HEAL: pick_then_place(s, x, action, Z_DISCARD); return;
    default: return;
    }
}
