"""The database schema, in one place: every table and index the server stores, on one :data:`metadata`.

A match is stored as its *record* — playset, seed, start setting, deck digest and the list of accepted
actions (:data:`actions_table`) — plus metadata (mode, seats, clocks, result, rematch links). The state is
never stored: it is rebuilt by replaying the record. Seat and player tokens are never stored, only their
SHA-256 hashes. A finished match's reviews are stored beside it. The lobby's tables hold the players, the
open tables, who played which seat, the players' name changes and the rating changes.

The migrations (:mod:`converge.server.storage.migrations`) bring a database to this schema; a test checks that
they and this module agree.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

settings_table = Table(
    "converge_settings", metadata,
    Column("key", String(64), primary_key=True),
    Column("value", String(256), nullable=False),
)

matches_table = Table(
    "converge_matches", metadata,
    Column("id", String(32), primary_key=True),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("mode", String(8), nullable=False),  # "bot" or "friend"
    Column("playset", String(256), nullable=False),  # JSON list of three skillset names
    Column("seed", BigInteger, nullable=False),
    Column("start", String(8), nullable=False),  # "random", "0" or "1" (M2)
    Column("decks", String(64), nullable=False),  # the playset's deck digest
    Column("bot_seed", BigInteger, nullable=False),
    Column("status", String(8), nullable=False),  # "active" or "over"
    Column("n_actions", Integer, nullable=False),
    Column("winner", Integer, nullable=True),
    Column("reason", String(16), nullable=True),  # "match" (the engine's result), "time" or "resign"
    Column("clock_ms", Integer, nullable=True),  # per-player time for the whole match, or None
    Column("rematch_of", String(32), nullable=True),
    Column("rematch_id", String(32), nullable=True),
    Column("hints", Integer, nullable=True),  # bit p set: seat p allows hints (friend matches)
    #: A turn-based match: seconds each decision may take, counted from the last move (None: real time).
    Column("move_s", Integer, nullable=True),
    Column("to_move", Integer, nullable=True),  # a turn-based match: the seat whose decision it is
)

#: For the retention clean-up: finished / in-progress matches by the time of their last change.
status_index = Index("converge_matches_status_updated", matches_table.c.status, matches_table.c.updated_at)

seats_table = Table(
    "converge_seats", metadata,
    Column("match_id", String(32), ForeignKey("converge_matches.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("token_hash", String(64), nullable=True),  # None: a bot's seat (no one can act for it)
    Column("bot", String(32), nullable=True),  # the bot playing this seat, if any
    Column("replaced", Boolean, nullable=False, default=False),  # a bot stands in for a player who left
    Column("clock_left_ms", Integer, nullable=True),
    #: A turn-based match: the seconds of vacation this seat has left (time beyond a move's, spent first).
    Column("vacation_left_s", Float, nullable=True),
)

actions_table = Table(
    "converge_actions", metadata,
    Column("match_id", String(32), ForeignKey("converge_matches.id"), primary_key=True),
    Column("idx", Integer, primary_key=True),  # 0, 1, 2... : a second write of the same index fails
    Column("action", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("at", Float, nullable=False),
    Column("clock_left_ms", Integer, nullable=True),  # the acting seat's clock after the action
)

#: A finished match reviewed for one seat (:mod:`converge.bots.review`): made once, on a player's request.
reviews_table = Table(
    "converge_reviews", metadata,
    Column("match_id", String(32), ForeignKey("converge_matches.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("created_at", Float, nullable=False),
    Column("doc", Text, nullable=False),  # the review as JSON (converge.bots.review.ReviewDoc)
)


# ---------------------------------------------------------------------- the lobby's

players_table = Table(
    "converge_players", metadata,
    Column("id", String(32), primary_key=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("name", String(64), nullable=True),  # None: anonymous
    #: The name's key whatever its case (:func:`converge.server.lobby.identity.name_key`); its other keys, and
    #: this one, are in :data:`name_keys_table`.
    Column("name_key", String(64), nullable=True, unique=True),
    Column("r", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("vol", Float, nullable=False),
    Column("games", Integer, nullable=False),  # rated matches finished
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    #: The address the player signs in with on other devices (casefolded), or None (this browser only).
    Column("email", String(254), nullable=True, unique=True),
    #: Mail me when it is my turn in a turn-based match (a player with an address).
    Column("notify_turns", Boolean, nullable=True),
    #: Banned by the server's hosts (``converge admin ban``): since when, and why (shown to the player).
    Column("banned_at", Float, nullable=True),
    Column("ban_reason", String(200), nullable=True),
    #: The player's choices about other people (None: the default): their profile page hidden (default
    #: shown); chat shown to them and theirs sent (default: on for a named player, off for an anonymous one);
    #: challenges taken from the players they follow only (default: from anyone).
    Column("profile_hidden", Boolean, nullable=True),
    Column("chat_on", Boolean, nullable=True),
    Column("friends_only", Boolean, nullable=True),
)

#: Every key of every player's name (:func:`converge.server.lobby.identity.name_keys`): two players' names
#: never share one, so that no name is taken twice by a change of case or a look-alike letter.
name_keys_table = Table(
    "converge_name_keys", metadata,
    Column("key", String(128), primary_key=True),
    Column("player_id", String(32), nullable=False, index=True),
)

#: A player's other devices: each signed-in browser's player token (its hash), beside the first one's
#: (``converge_players.token_hash``).
device_tokens_table = Table(
    "converge_device_tokens", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("player_id", String(32), nullable=False, index=True),
    Column("created_at", Float, nullable=False),
)

#: More keys to a seat: a signed-in player's other devices get one each for the seats they hold in matches in
#: progress (stored hashed, like the seat's own token).
seat_keys_table = Table(
    "converge_seat_keys", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("match_id", String(32), ForeignKey("converge_matches.id"), nullable=False, index=True),
    Column("seat", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
)

#: The "your turn" mails of turn-based matches, queued in the transaction of the move that passed the turn: one
#: per turn (the key), sent by whichever server process takes it first (:mod:`converge.server.accounts.turn_mail`).
outbox_table = Table(
    "converge_outbox", metadata,
    Column("match_id", String(32), primary_key=True),
    Column("idx", Integer, primary_key=True),  # the match's actions when the turn began
    Column("seat", Integer, nullable=False),  # whose turn it is
    Column("created_at", Float, nullable=False),
    Column("next_at", Float, nullable=False),  # not tried before then (a process that takes it pushes it on)
    Column("attempts", Integer, nullable=False),
    Column("done_at", Float, nullable=True),
    Column("outcome", String(16), nullable=True),  # "sent", "skipped" (moved meanwhile; nobody asked), "failed"
)
outbox_due_index = Index("converge_outbox_due", outbox_table.c.done_at, outbox_table.c.next_at)

#: The sign-in links mailed and not yet expired: single use, stored hashed.
sign_ins_table = Table(
    "converge_sign_ins", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("email", String(254), nullable=False, index=True),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
    Column("used_at", Float, nullable=True),
    #: The player of the browser that asked for the link (None: a browser that was no player yet): for an
    #: address new here, the link signs the browser it is opened in to this player.
    Column("player_id", String(32), nullable=True, index=True),
)

lobby_tables_table = Table(
    "converge_lobby_tables", metadata,
    Column("id", String(32), primary_key=True),  # also the id of the match it becomes
    Column("host_id", String(32), nullable=False),
    Column("host_seat", Integer, nullable=False),
    Column("host_token_hash", String(64), nullable=False),  # the host's seat token, known before the match exists
    Column("playset", String(256), nullable=False),  # JSON list
    Column("clock_ms", Integer, nullable=True),
    Column("move_s", Integer, nullable=True),  # a turn-based table: seconds per move
    Column("rated", Boolean, nullable=False),
    Column("private", Boolean, nullable=False),
    Column("status", String(8), nullable=False),  # "open", "started", "closed"
    Column("guest_id", String(32), nullable=True),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
)
lobby_open_index = Index("converge_lobby_tables_status", lobby_tables_table.c.status,
                         lobby_tables_table.c.created_at)

match_players_table = Table(
    "converge_match_players", metadata,
    Column("match_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("player_id", String(32), nullable=False, index=True),
    Column("rated", Boolean, nullable=False),
    #: how the match was found: "table", "quick", "invite", "event" (a tournament's), "duel" (a challenge's)
    Column("kind", String(8), nullable=False),
    Column("name", String(64), nullable=True),  # the player's name when the match started (None: anonymous)
)

name_changes_table = Table(
    "converge_name_changes", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("player_id", String(32), nullable=False, index=True),
    Column("at", Float, nullable=False),
    Column("name", String(64), nullable=True),  # the new name (None: anonymous)
    Column("reason", String(8), nullable=False),  # "rename" (the player's), "cleared" (by the name rules)
)

rating_changes_table = Table(
    "converge_rating_changes", metadata,
    Column("match_id", String(32), primary_key=True),
    Column("player_id", String(32), primary_key=True),  # a second change for the same match is refused
    Column("seat", Integer, nullable=False),
    Column("score", Float, nullable=False),
    Column("r_before", Float, nullable=False),
    Column("rd_before", Float, nullable=False),
    Column("r_after", Float, nullable=False),
    Column("rd_after", Float, nullable=False),
    Column("vol_after", Float, nullable=False),
    Column("at", Float, nullable=False),
)


# ---------------------------------------------------------------------- moderation

#: Players' reports of other players ("report this player" on a match's page), for the hosts to read.
reports_table = Table(
    "converge_reports", metadata,
    Column("id", String(32), primary_key=True),
    Column("at", Float, nullable=False),
    Column("reporter_id", String(32), nullable=False, index=True),
    Column("reported_id", String(32), nullable=False, index=True),
    Column("match_id", String(32), nullable=False),
    Column("seat", Integer, nullable=False),  # the reported player's seat in that match
    Column("reported_name", String(64), nullable=True),  # their name in that match (None: anonymous)
    Column("reason", String(16), nullable=False),  # one of converge.server.moderation.REPORT_REASONS
    Column("note", String(500), nullable=True),
    Column("closed_at", Float, nullable=True),  # handled by a host
)
reports_open_index = Index("converge_reports_open", reports_table.c.closed_at, reports_table.c.at)

#: Every action of the hosts (``converge admin``), never changed or deleted by the server.
audit_table = Table(
    "converge_audit", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),
    Column("actor", String(64), nullable=False),  # who did it, as they said (``converge admin --as``)
    Column("action", String(16), nullable=False),  # rename, ban, unban, close_table, delete_match, close_report
    Column("target", String(64), nullable=False),  # the player, table, match or report
    Column("reason", String(500), nullable=False),
    Column("detail", Text, nullable=False),  # JSON: what it changed (the old name, the matches ended...)
)


# ---------------------------------------------------------------------- tournaments

#: An event: its format and rules, who hosts it, where it is (``round``: the round being played, 0 before).
tournaments_table = Table(
    "converge_tournaments", metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("format", String(12), nullable=False),  # "swiss", "arena", "round_robin"
    Column("status", String(10), nullable=False),  # "upcoming", "running", "paused", "finished", "cancelled"
    Column("host_id", String(32), nullable=False, index=True),
    Column("rounds", Integer, nullable=True),  # a Swiss's rounds (a round robin's follow from its players)
    Column("duration_s", Integer, nullable=True),  # an arena's
    Column("clock_ms", Integer, nullable=True),  # a live clock per player
    Column("move_s", Integer, nullable=True),  # turn-based: seconds per move
    Column("rated", Boolean, nullable=False),
    Column("playset", String(256), nullable=False),  # JSON: a list of skillsets, or "sets"/"all" drawn per round
    Column("starts_at", Float, nullable=True),  # None: when the host starts it
    Column("max_players", Integer, nullable=False),
    Column("link_hash", String(64), nullable=True),  # a club's event: joined by its link only
    Column("round", Integer, nullable=False),
    Column("first_mover", String(8), nullable=False),  # the Swiss's initial colour, drawn when it starts
    Column("created_at", Float, nullable=False),
    Column("started_at", Float, nullable=True),
    Column("ended_at", Float, nullable=True),
)
tournaments_status_index = Index("converge_tournaments_status", tournaments_table.c.status,
                                 tournaments_table.c.starts_at)

#: Who plays an event: a player, or a bot (``player_id`` "bot:<level>:<n>", unrated events only).
tournament_entrants_table = Table(
    "converge_tournament_entrants", metadata,
    Column("tournament_id", String(32), primary_key=True),
    Column("player_id", String(64), primary_key=True),
    Column("joined", Integer, nullable=False),  # order of joining (seeding's last key)
    Column("joined_at", Float, nullable=False),
    Column("rating", Float, nullable=False),  # at joining: the seeding
    Column("name", String(64), nullable=True),
    Column("status", String(10), nullable=False),  # "in", "paused" (an arena's), "withdrawn"
)

#: Each round's tables: a match between two entrants, or a bye; its result written in the transaction that
#: ends the match.
tournament_games_table = Table(
    "converge_tournament_games", metadata,
    Column("tournament_id", String(32), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("board", Integer, primary_key=True),
    Column("first_id", String(64), nullable=False),
    Column("second_id", String(64), nullable=True),  # None: a bye
    Column("match_id", String(32), nullable=True, unique=True),
    Column("outcome", String(8), nullable=False),  # "pending", "first", "second", "drawn"
    Column("forfeit", Boolean, nullable=False),
    Column("playset", String(256), nullable=True),  # JSON: the match's skillsets (None: a bye, a forfeit)
    Column("paired_at", Float, nullable=False),
    Column("ended_at", Float, nullable=True),
)


# ---------------------------------------------------------------------- people

#: Who follows whom (a player's friends are the players they follow).
follows_table = Table(
    "converge_follows", metadata,
    Column("follower_id", String(32), primary_key=True),
    Column("followed_id", String(32), primary_key=True, index=True),
    Column("at", Float, nullable=False),
)

#: Whom a player muted: their chat lines are not sent to the player, anywhere.
mutes_table = Table(
    "converge_mutes", metadata,
    Column("player_id", String(32), primary_key=True),
    Column("muted_id", String(32), primary_key=True),
    Column("at", Float, nullable=False),
)

#: Chat lines, kept with their match (deleted with it) so that a report carries them; the lobby's are in
#: room "lobby". ``room``: "lobby", or "<match id>:players" / "<match id>:spectators".
chat_table = Table(
    "converge_chat", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("room", String(48), nullable=False),
    Column("match_id", String(32), nullable=True, index=True),
    Column("player_id", String(32), nullable=False, index=True),
    Column("name", String(64), nullable=True),  # the name it was sent under (None: anonymous)
    Column("at", Float, nullable=False),
    Column("text", String(500), nullable=False),
    Column("quick", String(16), nullable=True),  # a quick message's key ("gg"...), None: typed
)
chat_room_index = Index("converge_chat_room", chat_table.c.room, chat_table.c.id)

#: A challenge from one named player to another: the match it proposes, until it is answered or expires.
challenges_table = Table(
    "converge_challenges", metadata,
    Column("id", String(32), primary_key=True),
    Column("from_id", String(32), nullable=False, index=True),
    Column("to_id", String(32), nullable=False, index=True),
    Column("playset", String(256), nullable=False),  # JSON: three skillsets
    Column("clock_ms", Integer, nullable=True),
    Column("move_s", Integer, nullable=True),
    Column("rated", Boolean, nullable=False),
    Column("status", String(10), nullable=False),  # "open", "accepted", "declined", "cancelled", "expired"
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
    Column("match_id", String(32), nullable=True),  # the match made when it was accepted
)

#: Puzzles (:mod:`converge.puzzles`): the package's set, stored at the server's start, and those the server made
#: from its own finished matches (``match_id``: the match it came from; never its players). ``doc``: the
#: puzzle as JSON (its record replays the deal: it never leaves the server); ``r``/``rd``/``vol``: its rating.
puzzles_table = Table(
    "converge_puzzles", metadata,
    Column("id", String(16), primary_key=True),
    Column("doc", Text, nullable=False),
    Column("themes", String(400), nullable=False),  # " take declare effect:convert " (a space each side)
    Column("source", String(16), nullable=False),  # "shipped" or "server"
    Column("match_id", String(32), nullable=True, index=True),
    Column("r", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("vol", Float, nullable=False),
    Column("tried", Integer, nullable=False),
    Column("solved", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
)
puzzles_rating_index = Index("converge_puzzles_r", puzzles_table.c.r)

#: A player's puzzle rating (their own, apart from their match rating) and streaks.
puzzle_players_table = Table(
    "converge_puzzle_players", metadata,
    Column("player_id", String(32), primary_key=True),
    Column("r", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("vol", Float, nullable=False),
    Column("streak", Integer, nullable=False),
    Column("best_streak", Integer, nullable=False),
    Column("tried", Integer, nullable=False),
    Column("solved", Integer, nullable=False),
    Column("updated_at", Float, nullable=False),
)

#: A player's first finished attempt at a puzzle: the rated one (one per player and puzzle).
puzzle_attempts_table = Table(
    "converge_puzzle_attempts", metadata,
    Column("player_id", String(32), primary_key=True),
    Column("puzzle_id", String(16), primary_key=True),
    Column("solved", Boolean, nullable=False),
    Column("at", Float, nullable=False),
    Column("r_before", Float, nullable=False),
    Column("r_after", Float, nullable=False),
    Column("puzzle_before", Float, nullable=False),
    Column("puzzle_after", Float, nullable=False),
)

#: The finished matches the server looked for puzzles in (each once).
puzzle_scans_table = Table(
    "converge_puzzle_scans", metadata,
    Column("match_id", String(32), primary_key=True),
    Column("at", Float, nullable=False),
    Column("found", Integer, nullable=False),
)
