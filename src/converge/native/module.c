/* converge._native: the native core as a Python module (see core.h). Clients reach it through
 * converge.engine.native (a state built from a Match and read back into one) and converge.bots.search; its
 * functions trust their callers for speed only where those have checked (the tables, the fields). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core.h"
#include "rng.h"
#include "search.h"
#include "solve.h"

/* ---------------------------------------------------------------- reading and writing fields */

static int read_int(PyObject *o, long lo, long hi, long *out, const char *what) {
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s: %ld is outside %ld..%ld", what, v, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* a sequence of at most cap small ints, each in lo..hi */
static int read_ints(PyObject *seq, int8_t *out, int cap, long lo, long hi, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > cap) {
        PyErr_Format(PyExc_ValueError, "%s: %zd items, at most %d", what, n, cap);
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v;
        if (read_int(PySequence_Fast_GET_ITEM(fast, i), lo, hi, &v, what) < 0) {
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (int8_t)v;
    }
    Py_DECREF(fast);
    return (int)n;
}

static int read_cards(PyObject *seq, Cards *l, const char *what) {
    int n = read_ints(seq, l->c, NUM_CARDS, 0, NUM_CARDS - 1, what);
    if (n < 0) return -1;
    l->n = (uint8_t)n;
    return 0;
}

static PyObject *cards_list(const Cards *l) {
    PyObject *out = PyList_New(l->n);
    if (!out) return NULL;
    for (int i = 0; i < l->n; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(l->c[i]));
    return out;
}

static PyObject *ints_list(const int8_t *v, int n) {
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(v[i]));
    return out;
}

static PyObject *bytes_list(const uint8_t *v, int n) {
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(v[i]));
    return out;
}

/* The fields of a state, in the order converge.engine.native.FIELDS names them. */
#define NUM_FIELDS 36

static int read_state(PyObject *fields, State *s) {
    if (!PyTuple_Check(fields) || PyTuple_GET_SIZE(fields) != NUM_FIELDS) {
        PyErr_Format(PyExc_ValueError, "a state is a tuple of %d fields", NUM_FIELDS);
        return -1;
    }
    memset(s, 0, sizeof *s);
    PyObject **f = &PyTuple_GET_ITEM(fields, 0);
    long v;
    int8_t tmp[NUM_CARDS * 5];
    int n;
    if (read_cards(f[0], &s->hands[0], "hands[0]") < 0 || read_cards(f[1], &s->hands[1], "hands[1]") < 0
        || read_cards(f[2], &s->factions[0], "factions[0]") < 0
        || read_cards(f[3], &s->factions[1], "factions[1]") < 0 || read_cards(f[4], &s->discard, "discard") < 0
        || read_cards(f[5], &s->goals, "goals") < 0 || read_cards(f[6], &s->deck, "deck") < 0)
        return -1;
    if (read_int(f[7], -1, NUM_CARDS - 1, &v, "artifact") < 0) return -1;
    s->artifact = (int8_t)v;
    if (read_ints(f[8], s->skill, NUM_CARDS, 0, 2, "skill") != NUM_CARDS
        || read_ints(f[9], s->rank, NUM_CARDS, 1, 6, "rank") != NUM_CARDS
        || read_ints(f[10], s->guard, NUM_CARDS, -1, 1, "guard") != NUM_CARDS)
        goto bad_length;
    if (read_ints(f[11], tmp, NUM_CARDS, 0, 1, "recalled") != NUM_CARDS) goto bad_length;
    for (int i = 0; i < NUM_CARDS; i++) s->recalled[i] = (uint8_t)tmp[i];
    if (read_ints(f[12], tmp, NUM_CARDS, 0, 3, "known") != NUM_CARDS) goto bad_length;
    for (int i = 0; i < NUM_CARDS; i++) s->known[i] = (uint8_t)tmp[i];
    /* temp: a flat list of 5 ints per conversion */
    n = read_ints(f[13], tmp, MAX_TEMP * 5, -1, 17, "temp");
    if (n < 0) return -1;
    if (n % 5) goto bad_length;
    s->ntemp = (uint8_t)(n / 5);
    memcpy(s->temp, tmp, (size_t)n);
    if (read_int(f[14], 0, 1000, &v, "round_no") < 0) return -1;
    s->round_no = (int16_t)v;
    if (read_int(f[15], 0, 30000, &v, "turn_no") < 0) return -1;
    s->turn_no = (int16_t)v;
    if (read_ints(f[16], s->round_wins, 2, 0, 2, "round_wins") != 2) goto bad_length;
    n = read_ints(f[17], tmp, 2 * MAX_ROUNDS, 0, 1, "round_results");
    if (n < 0) return -1;
    if (n % 2) goto bad_length;
    s->nresults = (uint8_t)(n / 2);
    memcpy(s->results, tmp, (size_t)n);
    n = read_ints(f[18], s->first_holders, MAX_ROUNDS, 0, 1, "first_holders");
    if (n < 0) return -1;
    s->nfirst = (uint8_t)n;
    static const char *names[] = {"holder", "lead", "turn_step", "phase", "player", "active", "winner",
                                  "deal_holder"};
    static const long lows[] = {-1, -1, 0, 0, -2, -1, -1, -1}, highs[] = {1, 1, 1, 5, 1, 17, 1, 1};
    int8_t *slots[] = {&s->holder, &s->lead, &s->turn_step, &s->phase, &s->player, &s->active, &s->winner,
                       &s->deal_holder};
    for (int i = 0; i < 8; i++) {
        if (read_int(f[19 + i], lows[i], highs[i], &v, names[i]) < 0) return -1;
        *slots[i] = (int8_t)v;
    }
    if (read_int(f[27], -1, NUM_EFFECT_KINDS - 1, &v, "effect kind") < 0) return -1;
    s->ekind = (int8_t)v;
    if (read_int(f[28], -1, NUM_CARDS - 1, &v, "effect card") < 0) return -1;
    s->ecard = (int8_t)v;
    if (read_ints(f[29], s->args, MAX_ARGS, -100, 100, "effect args") < 0) return -1;
    if (read_int(f[30], 0, 3, &v, "effect step") < 0) return -1;
    s->step = (int8_t)v;
    if (read_int(f[31], -100, 100, &v, "effect remaining") < 0) return -1;
    s->remaining = (int8_t)v;
    if (read_int(f[32], -1, NUM_CARDS - 1, &v, "effect pending") < 0) return -1;
    s->pending = (int8_t)v;
    if (read_cards(f[33], &s->picked, "picked") < 0 || read_cards(f[34], &s->revealed, "revealed") < 0) return -1;
    if (read_int(f[35], 0, 255, &v, "effect decisions") < 0) return -1;
    s->decisions = (uint8_t)v;
    return 0;
bad_length:
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a field of the state has the wrong length");
    return -1;
}

static int effect_nargs(int kind) {
    static const int nargs[NUM_EFFECT_KINDS] = {4, 1, 3, 1, 1, 2, 1, 1, 2};
    return kind < 0 ? 0 : nargs[kind];
}

static PyObject *state_fields(const State *s) {
    int8_t temp[MAX_TEMP * 5], results[2 * MAX_ROUNDS];
    memcpy(temp, s->temp, (size_t)s->ntemp * 5);
    memcpy(results, s->results, (size_t)s->nresults * 2);
    return Py_BuildValue(
        "(NNNNNNNiNNNNNNiiNNNiiiiiiiiiiNiiiNNi)", cards_list(&s->hands[0]), cards_list(&s->hands[1]),
        cards_list(&s->factions[0]), cards_list(&s->factions[1]), cards_list(&s->discard), cards_list(&s->goals),
        cards_list(&s->deck), s->artifact, ints_list(s->skill, NUM_CARDS), ints_list(s->rank, NUM_CARDS),
        ints_list(s->guard, NUM_CARDS), bytes_list(s->recalled, NUM_CARDS), bytes_list(s->known, NUM_CARDS),
        ints_list(temp, s->ntemp * 5), (int)s->round_no, (int)s->turn_no, ints_list(s->round_wins, 2),
        ints_list(results, s->nresults * 2), ints_list(s->first_holders, s->nfirst), s->holder, s->lead,
        s->turn_step, s->phase, s->player, s->active, s->winner, s->deal_holder, s->ekind, s->ecard,
        ints_list(s->args, effect_nargs(s->ekind)), s->step, s->remaining, s->pending, cards_list(&s->picked),
        cards_list(&s->revealed), (int)s->decisions);
}

static int read_tables(PyObject *blob, Tables *t) {
    char *data;
    Py_ssize_t n;
    if (PyBytes_AsStringAndSize(blob, &data, &n) < 0) return -1;
    if (n != (Py_ssize_t)sizeof(Tables)) {
        PyErr_Format(PyExc_ValueError, "the tables of a playset are %zu bytes, got %zd", sizeof(Tables), n);
        return -1;
    }
    memcpy(t, data, sizeof *t);
    for (int c = 0; c < NUM_CARDS; c++) {
        if (t->effect_kind[c] < 0 || t->effect_kind[c] >= NUM_EFFECT_KINDS || t->goal_kind[c] < 0
            || t->goal_kind[c] >= NUM_GOAL_KINDS || t->printed_skill[c] < 0 || t->printed_skill[c] > 2
            || t->printed_rank[c] < 1 || t->printed_rank[c] > 6) {
            PyErr_Format(PyExc_ValueError, "the tables of card %d are out of range", c);
            return -1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- the State type */

typedef struct {
    PyObject_HEAD
    State s;
    Tables t;
    EventLog log;
    int logging;
    int ndeals;
    int8_t deals[MAX_ROUNDS][NUM_CARDS];
} NativeState;

static PyTypeObject NativeStateType;

static Ctx ctx_of(NativeState *self) {
    Ctx x = {&self->t, self->logging ? &self->log : NULL, self->ndeals,
             (const int8_t (*)[NUM_CARDS])self->deals};
    return x;
}

static void native_dealloc(NativeState *self) {
    free(self->log.data);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* State(tables, fields, deals=(), log=False) */
static int native_init(NativeState *self, PyObject *args, PyObject *kwargs) {
    static char *kw[] = {"tables", "fields", "deals", "log", NULL};
    PyObject *tables, *fields, *deals = NULL;
    int logging = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|Op", kw, &tables, &fields, &deals, &logging)) return -1;
    if (read_tables(tables, &self->t) < 0 || read_state(fields, &self->s) < 0) return -1;
    self->ndeals = 0;
    if (deals) {
        PyObject *fast = PySequence_Fast(deals, "deals");
        if (!fast) return -1;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
        if (n > MAX_ROUNDS) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "at most 3 deals");
            return -1;
        }
        for (Py_ssize_t r = 0; r < n; r++)
            if (read_ints(PySequence_Fast_GET_ITEM(fast, r), self->deals[r], NUM_CARDS, 0, NUM_CARDS - 1, "deal")
                != NUM_CARDS) {
                Py_DECREF(fast);
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a deal orders the 18 cards");
                return -1;
            }
        self->ndeals = (int)n;
        Py_DECREF(fast);
    }
    self->logging = logging;
    free(self->log.data);
    memset(&self->log, 0, sizeof self->log);
    return 0;
}

static PyObject *native_new_state(PyTypeObject *type, const State *s, const Tables *t) {
    NativeState *out = (NativeState *)type->tp_alloc(type, 0);
    if (!out) return NULL;
    out->s = *s;
    out->t = *t;
    return (PyObject *)out;
}

static PyObject *native_fields(NativeState *self, PyObject *unused) { return state_fields(&self->s); }

static PyObject *native_legal(NativeState *self, PyObject *unused) {
    int8_t legal[NUM_ACTIONS];
    Ctx x = ctx_of(self);
    return ints_list(legal, state_legal(&self->s, &x, legal));
}

static PyObject *native_apply(NativeState *self, PyObject *arg) {
    long a = PyLong_AsLong(arg);
    if (a == -1 && PyErr_Occurred()) return NULL;
    Ctx x = ctx_of(self);
    if (a < 0 || a >= NUM_ACTIONS || !state_is_legal(&self->s, &x, (int)a)) {
        PyErr_Format(PyExc_ValueError, "action %ld is not legal now", a);
        return NULL;
    }
    state_apply(&self->s, &x, (int)a);
    if (self->log.failed) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *native_events(NativeState *self, PyObject *unused) {
    size_t n = self->log.n / 6;
    PyObject *out = PyList_New((Py_ssize_t)n);
    if (!out) return NULL;
    for (size_t i = 0; i < n; i++) {
        const int32_t *e = self->log.data + 6 * i;
        PyObject *t = Py_BuildValue("(iiiiii)", e[0], e[1], e[2], e[3], e[4], e[5]);
        if (!t) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, (Py_ssize_t)i, t);
    }
    return out;
}

static PyObject *native_scores(NativeState *self, PyObject *unused) {
    int s0, s1;
    state_scores(&self->s, &self->t, &s0, &s1);
    return Py_BuildValue("(ii)", s0, s1);
}

static PyObject *native_copy(NativeState *self, PyObject *unused) {
    return native_new_state(Py_TYPE(self), &self->s, &self->t);
}

static int read_seed(PyObject *arg, uint64_t *seed) {
    unsigned long long v = PyLong_AsUnsignedLongLongMask(arg);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *seed = (uint64_t)v;
    return 0;
}

/* sample(player, rng_state) -> (world, rng_state): Match.sample_world(player, rng, chance=True) */
static PyObject *native_sample(NativeState *self, PyObject *args) {
    int player;
    PyObject *seed_obj;
    uint64_t rng;
    if (!PyArg_ParseTuple(args, "iO", &player, &seed_obj) || read_seed(seed_obj, &rng) < 0) return NULL;
    if (player != 0 && player != 1) {
        PyErr_SetString(PyExc_ValueError, "a player is 0 or 1");
        return NULL;
    }
    if (self->s.phase == PH_DEAL || self->s.phase == PH_START) {
        PyErr_SetString(PyExc_ValueError, "no world is sampled in the middle of a deal");
        return NULL;
    }
    State w = self->s;
    state_sample(&w, player, &rng);
    PyObject *world = native_new_state(Py_TYPE(self), &w, &self->t);
    if (!world) return NULL;
    return Py_BuildValue("(NK)", world, (unsigned long long)rng);
}

/* playout(rng_state, greedy) -> rng_state: Match.placement_playout (greedy > 0) or random_playout(rng, 1,
 * decline=False); logs events when the state does */
static PyObject *native_playout(NativeState *self, PyObject *args) {
    PyObject *seed_obj;
    double greedy;
    uint64_t rng;
    if (!PyArg_ParseTuple(args, "Od", &seed_obj, &greedy) || read_seed(seed_obj, &rng) < 0) return NULL;
    Ctx x = ctx_of(self);
    if (greedy > 0.0) placement_playout(&self->s, &x, &rng, greedy);
    else random_playout(&self->s, &x, &rng, 0);
    if (self->log.failed) return PyErr_NoMemory();
    return PyLong_FromUnsignedLongLong(rng);
}

static PyObject *native_get_player(NativeState *self, void *unused) {
    return PyLong_FromLong(self->s.phase == PH_OVER ? -1 : self->s.player);
}
static PyObject *native_get_phase(NativeState *self, void *unused) { return PyLong_FromLong(self->s.phase); }
static PyObject *native_get_rounds(NativeState *self, void *unused) { return PyLong_FromLong(self->s.nresults); }

static PyMethodDef native_methods[] = {
    {"fields", (PyCFunction)native_fields, METH_NOARGS, "the state's fields (converge.engine.native.FIELDS)"},
    {"legal_actions", (PyCFunction)native_legal, METH_NOARGS, "the legal actions, in increasing order"},
    {"apply", (PyCFunction)native_apply, METH_O, "apply a legal action (ValueError for any other)"},
    {"events", (PyCFunction)native_events, METH_NOARGS, "the events logged so far (a state made with log=True)"},
    {"scores", (PyCFunction)native_scores, METH_NOARGS, "the end-of-turn scores (T5)"},
    {"copy", (PyCFunction)native_copy, METH_NOARGS, "a copy, without events or later deals"},
    {"sample", (PyCFunction)native_sample, METH_VARARGS, "a world the player cannot tell from this one"},
    {"playout", (PyCFunction)native_playout, METH_VARARGS, "play to the end of the round"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef native_getset[] = {
    {"current_player", (getter)native_get_player, NULL, "the player to decide (-1: over, -2: a deal)", NULL},
    {"phase", (getter)native_get_phase, NULL, "the phase (engine/turn.py)", NULL},
    {"rounds_finished", (getter)native_get_rounds, NULL, "how many rounds have ended", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject NativeStateType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "converge._native.State",
    .tp_basicsize = sizeof(NativeState),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A state of the native core (see converge.engine.native).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)native_init,
    .tp_dealloc = (destructor)native_dealloc,
    .tp_methods = native_methods,
    .tp_getset = native_getset,
};

/* ---------------------------------------------------------------- benchmarks */

/* random_rounds(states, rounds, seed) -> rounds played: random playouts (decline allowed, as
 * Match.random_playout) of whole matches from the given states, until `rounds` rounds have ended; the
 * states must carry their later deals */
static PyObject *random_rounds(PyObject *module, PyObject *args) {
    PyObject *states, *seed_obj;
    long long rounds;
    uint64_t rng;
    if (!PyArg_ParseTuple(args, "OLO", &states, &rounds, &seed_obj) || read_seed(seed_obj, &rng) < 0) return NULL;
    PyObject *fast = PySequence_Fast(states, "states");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyObject_TypeCheck(PySequence_Fast_GET_ITEM(fast, i), &NativeStateType)) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_TypeError, "random_rounds takes native states");
            return NULL;
        }
    long long done = 0;
    if (n) {
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; done < rounds; i++) {
            NativeState *start = (NativeState *)PySequence_Fast_GET_ITEM(fast, i % n);
            State s = start->s;
            Ctx x = {&start->t, NULL, start->ndeals, (const int8_t (*)[NUM_CARDS])start->deals};
            while (s.phase != PH_OVER && s.phase != PH_DEAL)
                state_apply(&s, &x, state_random_action(&s, &x, rng_random(&rng), 1));
            done += s.nresults - start->s.nresults;
        }
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(fast);
    return PyLong_FromLongLong(done);
}

/* ---------------------------------------------------------------- the search */

/* (action, visits, wins, then) of each edge of a block; then: the same for the edges of the node it leads to that
 * are `me`'s own next decisions (and were simulated) */
static PyObject *tree_of(const SearchResult *r, int32_t block, int me, int all) {
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    const Block *b = &r->blocks[block];
    for (int i = 0; i < b->n; i++) {
        const Edge *e = &r->edges[b->first + i];
        if (!all && (e->player != me || !e->visits)) continue;
        PyObject *then = e->block < 0 ? PyList_New(0) : tree_of(r, e->block, me, 0);
        PyObject *item = then ? Py_BuildValue("(iidN)", e->action, e->visits, (double)e->wins, then) : NULL;
        if (!item || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(item);
    }
    return out;
}

/* search(state, me, simulations, seed, exploration, greedy) -> (tree, outcomes, finalists, simulations):
 * one part of converge.bots.search's search, as its _part returns it */
static PyObject *py_search(PyObject *module, PyObject *args) {
    NativeState *st;
    int me;
    long long simulations;
    PyObject *seed_obj;
    double exploration, greedy;
    uint64_t seed;
    if (!PyArg_ParseTuple(args, "O!iLOdd", &NativeStateType, &st, &me, &simulations, &seed_obj, &exploration,
                          &greedy)
        || read_seed(seed_obj, &seed) < 0)
        return NULL;
    if (me != 0 && me != 1) {
        PyErr_SetString(PyExc_ValueError, "a player is 0 or 1");
        return NULL;
    }
    if (st->s.player != me || st->s.phase == PH_OVER || st->s.phase == PH_DEAL || st->s.phase == PH_START) {
        PyErr_SetString(PyExc_ValueError, "the search is asked for a decision that is not the player's");
        return NULL;
    }
    if (simulations < 1) {
        PyErr_SetString(PyExc_ValueError, "a search needs at least one simulation");
        return NULL;
    }
    State root = st->s;
    Tables t = st->t;
    SearchResult r;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = run_search(&root, &t, me, simulations, seed, exploration, greedy, &r);
    Py_END_ALLOW_THREADS
    if (status < 0) {
        search_free(&r);
        return PyErr_NoMemory();
    }
    PyObject *tree = tree_of(&r, 0, me, 1), *outcomes = PyDict_New(), *finalists = ints_list(r.finalists, r.nfinal);
    for (int i = 0; tree && outcomes && i < r.nlegal; i++) {
        PyObject *key = PyLong_FromLong(r.legal[i]);
        PyObject *value = PyBytes_FromStringAndSize((const char *)r.outcomes[i], r.sweeps);
        if (!key || !value || PyDict_SetItem(outcomes, key, value) < 0) Py_CLEAR(outcomes);
        Py_XDECREF(key);
        Py_XDECREF(value);
    }
    long long done = r.done;
    search_free(&r);
    if (!tree || !outcomes || !finalists) {
        Py_XDECREF(tree);
        Py_XDECREF(outcomes);
        Py_XDECREF(finalists);
        return NULL;
    }
    return Py_BuildValue("(NNNL)", tree, outcomes, finalists, done);
}

/* ---------------------------------------------------------------- exact endgames */

typedef struct {
    Solver *S;
    int me, nworlds, depth;
} Endgame;

/* (action, worlds, wins, then, sure) for each legal action of the worlds (all `me`'s decision, all alike to
 * `me`): wins counts the worlds won with best play on both sides; sure is 1 when one way of playing on wins
 * in every world whatever the opponent does, -1 when every world is lost, else 0; then: the same for `me`'s
 * next decision when the action leads straight to one, to `depth` levels. NULL with an exception, or with
 * S->aborted set (the budget ran out). */
static PyObject *endgame_level(Endgame *E, const State *worlds, int level) {
    Solver *S = E->S;
    int8_t legal[NUM_ACTIONS];
    int nl = state_legal(&worlds[0], S->x, legal);
    State *next = PyMem_Malloc((size_t)E->nworlds * sizeof *next);
    PyObject *out = PyList_New(0);
    if (!next || !out) {
        PyMem_Free(next);
        Py_XDECREF(out);
        return PyErr_NoMemory();
    }
    for (int k = 0; k < nl; k++) {
        int wins = 0;
        for (int i = 0; i < E->nworlds; i++) {
            next[i] = worlds[i];
            state_apply(&next[i], S->x, legal[k]);
            wins += solve_world(S, &next[i]);
        }
        if (S->aborted) break;
        int sure = wins == 0 ? -1 : wins < E->nworlds ? 0 : wins_in_every_case(S, next, E->nworlds);
        if (S->aborted) break;
        PyObject *then;
        int again = next[0].player == E->me && next[0].nresults == S->round_index
                    && (next[0].phase == PH_MODE || next[0].phase == PH_EFFECT);
        if (again && level < E->depth) then = endgame_level(E, next, level + 1);
        else then = PyList_New(0);
        if (!then) break;
        PyObject *item = Py_BuildValue("(iiiNi)", legal[k], E->nworlds, wins, then, sure);
        if (!item || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            break;
        }
        Py_DECREF(item);
    }
    PyMem_Free(next);
    if (PyErr_Occurred() || S->aborted) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

/* endgame(state, me, depth, budget) -> (tree, worlds) or None: the exact values of `me`'s decision once the
 * deck is empty (see endgame_level), None when the deck is not empty or the budget of nodes ran out */
static PyObject *py_endgame(PyObject *module, PyObject *args) {
    NativeState *st;
    int me, depth;
    long long budget;
    if (!PyArg_ParseTuple(args, "O!iiL", &NativeStateType, &st, &me, &depth, &budget)) return NULL;
    if (me != 0 && me != 1) {
        PyErr_SetString(PyExc_ValueError, "a player is 0 or 1");
        return NULL;
    }
    if (st->s.player != me || st->s.phase > PH_EFFECT || st->s.phase == PH_OVER) {
        PyErr_SetString(PyExc_ValueError, "the endgame is asked for a decision that is not the player's");
        return NULL;
    }
    State *worlds = PyMem_Malloc(MAX_WORLDS * sizeof *worlds);
    if (!worlds) return PyErr_NoMemory();
    int n = endgame_worlds(&st->s, me, worlds, MAX_WORLDS);
    if (n <= 0) {
        PyMem_Free(worlds);
        Py_RETURN_NONE;
    }
    Ctx x = {&st->t, NULL, 0, NULL};
    Solver S;
    if (solver_init(&S, &x, me, st->s.nresults, budget) < 0) {
        PyMem_Free(worlds);
        return PyErr_NoMemory();
    }
    Endgame E = {&S, me, n, depth};
    PyObject *tree = endgame_level(&E, worlds, 1);
    long long nodes = S.nodes;
    solver_free(&S);
    PyMem_Free(worlds);
    if (!tree) {
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NONE; /* the budget ran out */
    }
    return Py_BuildValue("(NiL)", tree, n, nodes);
}

/* ---------------------------------------------------------------- the module */

static PyMethodDef module_methods[] = {
    {"random_rounds", random_rounds, METH_VARARGS, "random playouts of whole matches (the engine benchmark)"},
    {"search", py_search, METH_VARARGS, "one part of the strong search (converge.bots.search)"},
    {"endgame", py_endgame, METH_VARARGS, "the exact values of a decision once the deck is empty"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "converge._native",
    "The native core: a second implementation of the rules for search (see converge.engine.native).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__native(void) {
    if (PyType_Ready(&NativeStateType) < 0) return NULL;
    PyObject *m = PyModule_Create(&native_module);
    if (!m) return NULL;
    Py_INCREF(&NativeStateType);
    if (PyModule_AddObject(m, "State", (PyObject *)&NativeStateType) < 0
        || PyModule_AddIntConstant(m, "TABLES_SIZE", (long)sizeof(Tables)) < 0
        || PyModule_AddIntConstant(m, "STATE_SIZE", (long)sizeof(State)) < 0
        ) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
