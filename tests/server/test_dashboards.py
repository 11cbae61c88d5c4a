"""The shipped dashboard and alerts (issue 46) read what the server exports: every metric name that the PromQL
of deploy/grafana/converge.json and deploy/prometheus/rules.yml reads is a series of a server scraped after a
bot match, spectated, with a lobby page open and a few refusals — with the labels and the label values they
match on and group by. A name the server does not export is caught (a doctored expression). The rules are
Prometheus alerting rules, each with what a host should do; the dashboard's panels are complete and its
datasource is an input, so that it imports anywhere. Where promtool is installed (Debian's ``prometheus``
package), it checks the rules file and every dashboard expression, and each alert fires on made-up series past
its threshold for its time and not otherwise (its rule tests); where it is not, those two tests are skipped
(CI does not install it: the package is 96 MB with a Prometheus server, for two checks).
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT
from tests.server_support import Peer, auth, client_for, create, hang_guard  # noqa: F401 (hang_guard: a fixture)

pytest.importorskip("prometheus_client")

from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from converge.engine.actions import NUM_ACTIONS
from converge.server.lobby.identity import COOKIE

yaml = pytest.importorskip("yaml")  # (PyYAML: `make test` has it through the docs extra, MkDocs's)

DASHBOARD = ROOT / "deploy" / "grafana" / "converge.json"
RULES = ROOT / "deploy" / "prometheus" / "rules.yml"
TOKEN = "metrics-secret-for-dashboards-1"

#: Series the PromQL may read that no Converge server exports, and whose they are.
NOT_OURS = {"up": "Prometheus's own, one per scrape target", "probe_success": "the blackbox exporter's"}
#: Labels Prometheus gives every series it scrapes (its scrape target's).
TARGET_LABELS = frozenset({"job", "instance"})
#: Families the dashboard does not draw, and why.
NOT_DRAWN = {"converge_process_virtual_memory_bytes": "the resident memory is drawn; the virtual says little"}

# ---------------------------------------------------------------------------------------------------- PromQL

#: Names that are PromQL's words, not series (a function or an aggregation is told by the "(" after it).
KEYWORDS = frozenset({"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless",
                      "bool", "offset", "inf", "nan", "start", "end"})
GROUPING = frozenset({"by", "without", "on", "ignoring", "group_left", "group_right"})
_STRING = r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|`[^`]*`'
TOKEN_RE = re.compile(rf"""
    (?P<string>{_STRING})
  | (?P<matchers>\{{(?:{_STRING}|[^}}"'`])*\}})
  | (?P<range>\[[^\]]*\])
  | (?P<duration>(?:\d+(?:ms|[smhdwy]))+(?![A-Za-z0-9_:]))
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?![A-Za-z0-9_:]))
  | (?P<name>[A-Za-z_:][A-Za-z0-9_:]*)
  | (?P<variable>\$\{{?\w+\}}?)
  | (?P<open>\()
  | (?P<close>\))
  | (?P<space>\s+)
  | (?P<other>.)
""", re.VERBOSE | re.DOTALL)
MATCHER_RE = re.compile(rf"""([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*({_STRING})""")


@dataclass(frozen=True)
class Selector:
    """A series an expression reads: its name, and its matchers (label, operator, value)."""

    name: str
    matchers: tuple[tuple[str, str, str], ...] = ()


@dataclass
class Reads:
    """What one PromQL expression reads: the series it selects, and each grouping's label names with the
    series it groups (``by``, ``without``; ``on``, ``ignoring`` and ``group_*`` group both sides of their
    operator, taken here as the whole expression)."""

    selectors: list[Selector] = field(default_factory=list)
    groupings: list[tuple[frozenset[str], frozenset[str]]] = field(default_factory=list)

    @property
    def names(self) -> set[str]:
        return {s.name for s in self.selectors}


def read_promql(expr: str) -> Reads:
    """The series and groupings of ``expr`` (a PromQL expression, Grafana's ``$variables`` allowed where a
    string or a range is). Not a full parser: enough to name every series an expression reads."""
    tokens = [(m.lastgroup or "", m.group()) for m in TOKEN_RE.finditer(expr) if m.lastgroup != "space"]
    closing: dict[int, int] = {}
    opened: list[int] = []
    for n, (kind, _text) in enumerate(tokens):
        if kind == "open":
            opened.append(n)
        elif kind == "close":
            if not opened:
                raise ValueError(f"unbalanced ')' in {expr!r}")
            closing[opened.pop()] = n
    if opened:
        raise ValueError(f"unbalanced '(' in {expr!r}")
    opening = {c: o for o, c in closing.items()}

    labels_at: set[int] = set()  # tokens that name labels in a grouping's list, not series
    spans: list[tuple[frozenset[str], int, int]] = []
    for n, (kind, text) in enumerate(tokens):
        if kind != "name" or text not in GROUPING or n + 1 >= len(tokens) or tokens[n + 1][0] != "open":
            continue
        end = closing[n + 1]
        labels_at.update(range(n + 1, end + 1))
        labels = frozenset(t for k, t in tokens[n + 2:end] if k == "name")
        if text in ("by", "without") and n > 0 and tokens[n - 1][0] == "close":  # sum(x) by (l)
            spans.append((labels, opening[n - 1], n - 1))
        elif text in ("by", "without") and end + 1 < len(tokens) and tokens[end + 1][0] == "open":  # by (l) (x)
            spans.append((labels, end + 1, closing[end + 1]))
        else:
            spans.append((labels, 0, len(tokens) - 1))

    reads = Reads()
    at: dict[int, str] = {}
    for n, (kind, text) in enumerate(tokens):
        if kind != "name" or n in labels_at or text.lower() in KEYWORDS:
            continue
        after = tokens[n + 1] if n + 1 < len(tokens) else ("", "")
        if after[0] == "open" or (after[0] == "name" and after[1] in ("by", "without")):
            continue  # a function, or an aggregation (``sum(...)``, ``sum by (...) (...)``)
        matchers: tuple[tuple[str, str, str], ...] = ()
        if n + 1 < len(tokens) and tokens[n + 1][0] == "matchers":
            matchers = tuple((label, op, value[1:-1]) for label, op, value in MATCHER_RE.findall(tokens[n + 1][1]))
        reads.selectors.append(Selector(text, matchers))
        at[n] = text
    for labels, start, end in spans:
        reads.groupings.append((labels, frozenset(name for n, name in at.items() if start < n < end)))
    return reads


def test_the_promql_reader_finds_the_series_and_nothing_else() -> None:
    reads = read_promql('histogram_quantile(0.95, sum by (le, source) (rate(converge_action_seconds_bucket'
                        '{instance=~"$instance", kind!="a}b"}[$__rate_interval]))) > 0.25 '
                        'and on (instance) up{job="converge"} == 0 or sum(x_total offset 5m) without (code)')
    assert reads.names == {"converge_action_seconds_bucket", "up", "x_total"}
    assert Selector("up", (("job", "=", "converge"),)) in reads.selectors
    assert Selector("converge_action_seconds_bucket",
                    (("instance", "=~", "$instance"), ("kind", "!=", "a}b"))) in reads.selectors
    assert (frozenset({"le", "source"}), frozenset({"converge_action_seconds_bucket"})) in reads.groupings
    assert (frozenset({"code"}), frozenset({"x_total"})) in reads.groupings
    assert read_promql("4 * clamp_min(converge_bot_workers, 1e0)").names == {"converge_bot_workers"}
    with pytest.raises(ValueError, match="unbalanced"):
        read_promql("sum(rate(x[5m])")


# ---------------------------------------------------------------------------------------------------- files

def dashboard() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return doc


def panels(doc: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The dashboard's panels, those inside a collapsed row included; rows are not panels here."""
    for panel in doc["panels"]:
        if panel.get("type") == "row":
            yield from panel.get("panels", [])
        else:
            yield panel


def rules() -> list[dict[str, Any]]:
    doc = yaml.safe_load(RULES.read_text(encoding="utf-8"))
    return [rule for group in doc["groups"] for rule in group["rules"]]


@dataclass(frozen=True)
class Query:
    """One PromQL expression of the shipped files, where it is, and the labels its result may be named by
    (a legend's ``{{label}}``, an annotation's ``$labels.label``)."""

    where: str
    expr: str
    names: tuple[str, ...] = ()


def queries() -> list[Query]:
    found = []
    for panel in panels(dashboard()):
        for target in panel["targets"]:
            found.append(Query(f"dashboard panel {panel['title']!r} {target['refId']}", target["expr"],
                               tuple(re.findall(r"\{\{\s*(\w+)\s*\}\}", target.get("legendFormat", "")))))
    for rule in rules():
        text = " ".join(str(v) for v in rule.get("annotations", {}).values())
        found.append(Query(f"rule {rule['alert']}", rule["expr"], tuple(re.findall(r"\$labels\.(\w+)", text))))
    return found


def variables() -> list[tuple[str, str, str]]:
    """The dashboard's variables read from Prometheus: (variable, series, label) of each ``label_values``."""
    found = []
    for variable in dashboard()["templating"]["list"]:
        query = variable["query"]["query"] if isinstance(variable["query"], dict) else variable["query"]
        m = re.fullmatch(r"label_values\(\s*([A-Za-z_:][\w:]*)\s*,\s*(\w+)\s*\)", query)
        assert m, f"variable {variable['name']}: not a label_values(series, label) query: {query!r}"
        found.append((variable["name"], m[1], m[2]))
    return found


# ---------------------------------------------------------------------------------------------------- a server

@dataclass
class Exported:
    """What a scrape holds: each series name a family gives (a counter's ``_total``, a histogram's
    ``_bucket``, ``_sum`` and ``_count``), with its labels and the values seen of each."""

    labels: dict[str, set[str]] = field(default_factory=dict)
    values: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    families: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, text: str) -> Exported:
        exported = cls()
        suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"),
                    "summary": ("", "_sum", "_count"), "gauge": ("",), "unknown": ("",)}
        for family in text_string_to_metric_families(text):
            exported.families.add(family.name)
            names = {family.name + s for s in suffixes[family.type]}
            names |= {s.name for s in family.samples} - {family.name + "_created"}
            seen = {k for s in family.samples for k in s.labels if k != "le"}
            for name in names:
                exported.labels[name] = set(TARGET_LABELS | seen | ({"le"} if name.endswith("_bucket") else set()))
            for sample in family.samples:
                for label, value in sample.labels.items():
                    exported.values.setdefault((sample.name, label), set()).add(value)
        return exported


def problems(query: Query, exported: Exported) -> list[str]:
    """What ``query`` reads that ``exported`` does not hold: a series, a label, a label's value."""
    reads = read_promql(query.expr)
    found = []
    for selector in reads.selectors:
        if selector.name in NOT_OURS:
            continue
        if selector.name not in exported.labels:
            found.append(f"{query.where}: {selector.name} is not a series the server exports")
            continue
        for label, op, value in selector.matchers:
            if label not in exported.labels[selector.name]:
                found.append(f"{query.where}: {selector.name} has no label {label}")
            elif op == "=" and label not in TARGET_LABELS and value not in exported.values.get(
                    (selector.name, label), set()):
                found.append(f"{query.where}: {selector.name} never has {label}={value!r}")
    ours = [s.name for s in reads.selectors if s.name in exported.labels]
    for labels, grouped in reads.groupings:
        known = grouped & set(exported.labels)
        if not known:
            continue  # (Prometheus's or the exporter's series, or one reported above)
        have = set().union(TARGET_LABELS, *(exported.labels[n] for n in known))
        found += [f"{query.where}: no series it groups has the label {label}" for label in sorted(labels - have)]
    if query.names:
        kept = set().union(*(labels for labels, _g in reads.groupings)) - {"le"} if reads.groupings else \
            set().union(TARGET_LABELS, *(exported.labels[n] for n in ours)) - {"le"}
        found += [f"{query.where}: names the label {label}, which its result does not have"
                  for label in query.names if label not in kept]
    return found


def _play_a_bot_match(client: TestClient) -> Exported:
    """A player's match against the random bot to its end, watched, with a lobby page waiting for a quick
    match and a refusal, scraped before anyone leaves: every labelled series has its samples."""
    client.put("/api/me", json={"name": "Dashboarder"})
    cookie = client.cookies[COOKIE]
    doc = create(client, opponent="bot", bot="random", seat=0)
    peer, watcher = Peer(client, doc["match_id"], doc["token"]), Peer(client, doc["match_id"])
    with client.websocket_connect("/ws/lobby", headers={"cookie": f"{COOKIE}={cookie}"}) as lobby:
        lobby.send_text(json.dumps({"type": "hello"}))
        lobby.send_text(json.dumps({"type": "queue", "clock": None}))
        while json.loads(lobby.receive_text())["type"] != "queued":
            pass
        while peer.obs is None or peer.obs["current_player"] != 0:  # (the bot leads on some deals)
            peer.until(lambda m: m["type"] == "state")
        assert peer.act(NUM_ACTIONS)["code"] == "malformed"
        rng = random.Random(46)
        while peer.meta is not None and peer.meta["status"] == "active":
            obs = peer.obs
            assert obs is not None
            if obs["current_player"] != 0:
                peer.until(lambda m: m["type"] == "state")
                continue
            ack = peer.act(rng.choice(obs["decision"]["legal_actions"])["id"], peer.seq)
            assert ack["type"] == "ack", ack
            peer.state_at(ack["seq"])
        exported = Exported.of(client.get("/metrics", headers=auth(TOKEN)).text)
    watcher.close()
    peer.close()
    return exported


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Exported:
    """A server's series after a bot match (one server for the module's tests)."""
    with client_for(tmp_path_factory.mktemp("dashboards"), metrics_token=TOKEN,
                    quick_match_bot_after_s=600.0) as client:  # (the lobby page waits: no bot is sent to it)
        return _play_a_bot_match(client)


# ---------------------------------------------------------------------------------------------------- the tests

def test_every_series_the_dashboard_and_the_alerts_read_is_one_the_server_exports(exported: Exported) -> None:
    assert {"source", "kind"} <= exported.labels["converge_actions_total"]  # (the match played: samples)
    assert exported.values[("converge_actions_total", "source")] == {"player", "bot"}
    assert exported.values[("converge_connections", "kind")] == {"seat", "spectator", "lobby"}
    found = [p for query in queries() for p in problems(query, exported)]
    found += [f"variable {var}: {series} is not a series the server exports" for var, series, _label in variables()
              if series not in exported.labels]
    found += [f"variable {var}: {series} has no label {label}" for var, series, label in variables()
              if series in exported.labels and label not in exported.labels[series]]
    assert found == []
    assert len(queries()) > 30  # (every panel's and every rule's)


def test_a_series_the_server_does_not_export_is_caught(exported: Exported) -> None:
    """The check above can fail: a doctored expression of each kind of mistake is reported."""
    rate = "rate(converge_action_seconds_bucket[5m])"
    doctored = {
        "histogram_quantile(0.95, sum by (le) (rate(converge_action_seconds_total[5m])))":
            "converge_action_seconds_total is not a series",  # a histogram has no _total
        "sum(converge_connections_count)": "converge_connections_count is not a series",  # a gauge, no _count
        "rate(converge_actions[5m])": "converge_actions is not a series",  # a counter's series is _total
        "converge_made_up_total > 0": "converge_made_up_total is not a series",
        'sum(converge_connections{kind="seats"})': "never has kind='seats'",
        'converge_job_failing{job_name="turn_mails", exported_job="x"}': "has no label exported_job",
        f"histogram_quantile(0.99, sum by (le, code) ({rate}))": "no series it groups has the label code",
    }
    for expr, why in doctored.items():
        found = problems(Query("doctored", expr), exported)
        assert len(found) == 1 and why in found[0], (expr, found)
    assert problems(Query("doctored", "max by (instance) (converge_job_failing)", ("job_name",)), exported) == [
        "doctored: names the label job_name, which its result does not have"]
    # and the shipped ones, doctored: one made-up name in a rule is reported
    rule = rules()[0]
    assert problems(Query("doctored", rule["expr"] + " or converge_made_up"), exported) == [
        "doctored: converge_made_up is not a series the server exports"]
    assert all(problems(Query(q.where, q.expr), exported) == [] for q in queries())


def test_the_dashboard_draws_every_family_the_server_exports(exported: Exported) -> None:
    """A series added to the server without a panel fails here (or is named in NOT_DRAWN, with why)."""
    drawn = {name for query in queries() if query.where.startswith("dashboard")
             for name in read_promql(query.expr).names}
    for family in sorted(f for f in exported.families if f.startswith("converge_") and f not in NOT_DRAWN):
        series = [n for n in exported.labels if n == family or n.startswith(family + "_")]
        assert drawn & set(series), f"no panel draws {family}"


def test_each_rule_is_an_alert_with_a_duration_a_severity_and_what_to_do() -> None:
    doc = yaml.safe_load(RULES.read_text(encoding="utf-8"))
    assert set(doc) == {"groups"} and [set(g) for g in doc["groups"]] == [{"name", "rules"}] * len(doc["groups"])
    names = [rule["alert"] for rule in rules()]
    assert len(names) == len(set(names)) >= 6
    for rule in rules():
        assert set(rule) == {"alert", "expr", "for", "labels", "annotations"}, rule["alert"]
        assert re.fullmatch(r"Converge[A-Z][A-Za-z]+", rule["alert"])
        assert re.fullmatch(r"(\d+[smhdwy])+", rule["for"]), rule["alert"]
        assert rule["labels"]["severity"] in ("critical", "warning")
        summary = rule["annotations"]["summary"]
        assert len(summary) > 40 and ": " in summary, rule["alert"]  # what happened: what to do
    # the thresholds docs/hosting.md states
    exprs = {rule["alert"]: " ".join(rule["expr"].split()) for rule in rules()}
    assert exprs["ConvergeJobFailing"] == "max by (instance, job_name) (converge_job_failing) > 0"
    assert exprs["ConvergeDatabaseCommitsFailing"] == "rate(converge_db_commit_failures_total[5m]) > 0"
    assert exprs["ConvergeSlowActions"].startswith("histogram_quantile(0.99, ")
    assert exprs["ConvergeSlowActions"].endswith("(rate(converge_action_seconds_bucket[5m]))) > 0.25")


def test_the_hosting_page_says_what_to_do_for_each_alert() -> None:
    page = (ROOT / "docs" / "hosting.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `(Converge\w+)` \((critical|warning)\) \|", page, flags=re.MULTILINE)
    assert listed == [(rule["alert"], rule["labels"]["severity"]) for rule in rules()]


def test_the_dashboard_imports_anywhere_and_each_panel_has_a_title_a_place_and_queries() -> None:
    doc = dashboard()
    assert doc["schemaVersion"] >= 39 and doc["id"] is None and doc["uid"]
    assert [(i["name"], i["type"], i["pluginId"]) for i in doc["__inputs"]] == [
        ("DS_PROMETHEUS", "datasource", "prometheus")]
    text = DASHBOARD.read_text(encoding="utf-8")
    assert set(re.findall(r'"uid": "(\$\{\w+\})"', text)) == {"${DS_PROMETHEUS}"}  # no datasource of ours
    cells: dict[tuple[int, int], str] = {}
    ids = [panel["id"] for panel in doc["panels"]]
    assert len(ids) == len(set(ids))
    for panel in doc["panels"]:
        pos = panel["gridPos"]
        assert set(pos) == {"h", "w", "x", "y"} and pos["x"] + pos["w"] <= 24, panel["title"]
        xs, ys = range(pos["x"], pos["x"] + pos["w"]), range(pos["y"], pos["y"] + pos["h"])
        for cell in ((x, y) for x in xs for y in ys):
            assert cell not in cells, f"{panel['title']!r} covers {cells[cell]!r}"
            cells[cell] = panel["title"]
    for panel in panels(doc):
        assert panel["title"] and panel["description"] and panel["type"] in ("timeseries", "stat")
        assert panel["datasource"] == {"type": "prometheus", "uid": "${DS_PROMETHEUS}"}, panel["title"]
        assert panel["targets"], panel["title"]
        refs = [t["refId"] for t in panel["targets"]]
        assert len(refs) == len(set(refs)), panel["title"]
        for target in panel["targets"]:
            assert target["expr"].strip() and target["datasource"] == panel["datasource"], panel["title"]
    titles = {panel["title"] for panel in panels(doc)}
    assert {"Moves per second", "Move latency", "Commits", "Connections", "Bots' queue", "Bots' thinking time",
            "Refusals by code", "Matches open"} <= titles


PROMTOOL = shutil.which("promtool")


@pytest.mark.skipif(PROMTOOL is None, reason="no promtool here (apt-get install prometheus)")
def test_promtool_accepts_the_rules_and_every_dashboard_expression(tmp_path: Path) -> None:
    """Prometheus's own parser: the rules file, and the dashboard's expressions made recording rules (with
    Grafana's variables given values)."""
    assert PROMTOOL is not None
    checked = subprocess.run([PROMTOOL, "check", "rules", str(RULES)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"SUCCESS: {len(rules())} rules found" in checked.stdout
    values = {"$__rate_interval": "1m", "$instance": ".*"}
    recorded = []
    for n, query in enumerate(q for q in queries() if q.where.startswith("dashboard")):
        expr = query.expr
        for variable, value in values.items():
            expr = expr.replace(variable, value)
        assert "$" not in expr, query.where
        recorded.append({"record": f"converge:dashboard_{n}", "expr": expr})
    path = tmp_path / "dashboard-rules.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": recorded}]}), encoding="utf-8")
    checked = subprocess.run([PROMTOOL, "check", "rules", str(path)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _s(name: str, instance: str = "a:8001", job: str = "converge", **labels: str) -> str:
    """A series of ``name`` as Prometheus stores it: its labels and its scrape target's."""
    pairs = {"job": job, "instance": instance, **labels}
    return name + "{" + ", ".join(f'{k}="{v}"' for k, v in pairs.items()) + "}"


def _buckets(instance: str, under: int, total: int) -> dict[str, str]:
    """A player's move latencies on ``instance``, a minute's worth at a time: ``under`` of each ``total`` moves
    within 0.1 s, the others between 0.25 and 0.5 s."""
    return {_s("converge_action_seconds_bucket", instance, source="player", le=le): f"0+{n}x10"
            for le, n in (("0.1", under), ("0.25", under), ("0.5", total), ("+Inf", total))}


READY = "http://a:8001/readyz"
#: Each alert's cases for ``promtool test rules``: series (promtool's notation, a sample a minute), when the
#: alert is evaluated, and the labels of the series it fires for then (none: it must not fire).
ALERT_CASES: list[tuple[str, dict[str, str], str, list[dict[str, str]]]] = [
    ("ConvergeDown", {_s("up"): "1 0 0 0", _s("up", "a:8002"): "1 1 1 1"}, "3m",
     [{"job": "converge", "instance": "a:8001"}]),
    ("ConvergeDown", {_s("up"): "1 1 0"}, "2m", []),  # (down for less than a minute)
    ("ConvergeNotReady", {_s("probe_success", READY, "converge-ready"): "1 0 0 0 0"}, "4m",
     [{"job": "converge-ready", "instance": READY}]),
    ("ConvergeNotReady", {_s("probe_success", READY, "converge-ready"): "1 0 1 0 1"}, "4m",
     []),  # (a rolling restart's few seconds, twice)
    ("ConvergeJobFailing", {_s("converge_job_failing", job_name="turn_mails"): "0 1 1 1",
                            _s("converge_job_failing", job_name="retention"): "0 0 0 0"}, "3m",
     [{"instance": "a:8001", "job_name": "turn_mails"}]),
    ("ConvergeDatabaseCommitsFailing", {_s("converge_db_commit_failures_total"): "0 0 1 1",
                                        _s("converge_db_commit_failures_total", "a:8002"): "3 3 3 3"}, "3m",
     [{"job": "converge", "instance": "a:8001"}]),
    ("ConvergeDatabaseCommitsFailing", {_s("converge_db_commit_failures_total"): "0 1 1 1 1 1 1 1 1"}, "8m",
     []),  # (five minutes after the last failure)
    # one move in ten over 0.25 s on a:8001; on a:8002 one in two hundred, past the 99th percentile
    ("ConvergeSlowActions", {**_buckets("a:8001", 90, 100), **_buckets("a:8002", 199, 200)}, "9m",
     [{"instance": "a:8001", "source": "player"}]),
    ("ConvergeBotQueueFull", {_s("converge_bot_decisions_queued"): "8x7", _s("converge_bot_workers"): "2x7",
                              _s("converge_bot_decisions_queued", "a:8002"): "7x7",
                              _s("converge_bot_workers", "a:8002"): "2x7",
                              _s("converge_bot_decisions_queued", "a:8003"): "4x7",
                              _s("converge_bot_workers", "a:8003"): "0x7"}, "6m",
     [{"job": "converge", "instance": "a:8001"},
      {"job": "converge", "instance": "a:8003"}]),  # (no worker: bots think in a thread, which counts as one)
]


def _annotations(rule: dict[str, Any], labels: dict[str, str]) -> dict[str, str]:
    """The rule's annotations as Prometheus fills them for ``labels`` (they name labels only)."""
    return {key: re.sub(r"\{\{\s*\$labels\.(\w+)\s*\}\}", lambda m: labels[m[1]], text)
            for key, text in rule["annotations"].items()}


@pytest.mark.skipif(PROMTOOL is None, reason="no promtool here (apt-get install prometheus)")
def test_each_alert_fires_when_its_threshold_is_passed_for_its_time_and_not_before(tmp_path: Path) -> None:
    """promtool's rule tests on made-up series: each alert fires for the process (and the job) past its
    threshold for its time, and not for the others, nor for a blip."""
    assert PROMTOOL is not None
    by_name = {rule["alert"]: rule for rule in rules()}
    assert {case[0] for case in ALERT_CASES} == set(by_name)  # every alert has its case
    tests = []
    for alert, series, at, firing in ALERT_CASES:
        rule = by_name[alert]
        expected = [{"exp_labels": {**labels, **rule["labels"]},
                     "exp_annotations": _annotations(rule, labels)} for labels in firing]
        tests.append({"interval": "1m", "input_series": [{"series": s, "values": v} for s, v in series.items()],
                      "alert_rule_test": [{"eval_time": at, "alertname": alert, "exp_alerts": expected}]})
    path = tmp_path / "rules-test.yml"
    path.write_text(yaml.safe_dump({"rule_files": [str(RULES)], "evaluation_interval": "1m", "tests": tests}),
                    encoding="utf-8")
    checked = subprocess.run([PROMTOOL, "test", "rules", str(path)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
