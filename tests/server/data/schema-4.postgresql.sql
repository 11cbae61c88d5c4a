-- A database as the server of schema version 4 (before Alembic, b4823e5) left it, with matches (finished,
-- in progress, untouched; against bots and friends, with clocks and hints), players (named, renamed,
-- anonymous), lobby tables (joined, open, private) and rating changes. Made by playing through that
-- server's HTTP API, then dumped (pg_dump --inserts, without its psql-only \restrict lines).
-- Loaded by tests/server/test_migrations.py.
--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: converge_actions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.converge_actions (
    match_id character varying(32) NOT NULL,
    idx integer NOT NULL,
    action integer NOT NULL,
    seat integer NOT NULL,
    at double precision NOT NULL,
    clock_left_ms integer
);


--
-- Name: converge_lobby_tables; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.converge_lobby_tables (
    id character varying(32) NOT NULL,
    host_id character varying(32) NOT NULL,
    host_seat integer NOT NULL,
    host_token_hash character varying(64) NOT NULL,
    playset character varying(256) NOT NULL,
    clock_ms integer,
    rated boolean NOT NULL,
    private boolean NOT NULL,
    status character varying(8) NOT NULL,
    guest_id character varying(32),
    created_at double precision NOT NULL,
    updated_at double precision NOT NULL
);


--
-- Name: converge_match_players; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.converge_match_players (
    match_id character varying(32) NOT NULL,
    seat integer NOT NULL,
    player_id character varying(32) NOT NULL,
    rated boolean NOT NULL,
    kind character varying(8) NOT NULL,
    name character varying(64)
);


--
-- Name: converge_matches; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.converge_matches (
    id character varying(32) NOT NULL,
    created_at double precision NOT NULL,
    updated_at double precision NOT NULL,
    mode character varying(8) NOT NULL,
    playset character varying(256) NOT NULL,
    seed bigint NOT NULL,
    start character varying(8) NOT NULL,
    decks character varying(64) NOT NULL,
    bot_seed bigint NOT NULL,
    status character varying(8) NOT NULL,
    n_actions integer NOT NULL,
    winner integer,
    reason character varying(16),
    clock_ms integer,
    rematch_of character varying(32),
    rematch_id character varying(32),
    hints integer
);


--
-- Name: converge_name_changes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.converge_name_changes (
    id integer NOT NULL,
    player_id character varying(32) NOT NULL,
    at double precision NOT NULL,
    name character varying(64),
    reason character varying(8) NOT NULL
);


--
-- Name: converge_name_changes_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.converge_name_changes_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: converge_name_changes_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.converge_name_changes_id_seq OWNED BY public.converge_name_changes.id;


--
-- Name: converge_players; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.converge_players (
    id character varying(32) NOT NULL,
    token_hash character varying(64) NOT NULL,
    name character varying(64),
    name_key character varying(64),
    r double precision NOT NULL,
    rd double precision NOT NULL,
    vol double precision NOT NULL,
    games integer NOT NULL,
    created_at double precision NOT NULL,
    updated_at double precision NOT NULL
);


--
-- Name: converge_rating_changes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.converge_rating_changes (
    match_id character varying(32) NOT NULL,
    player_id character varying(32) NOT NULL,
    seat integer NOT NULL,
    score double precision NOT NULL,
    r_before double precision NOT NULL,
    rd_before double precision NOT NULL,
    r_after double precision NOT NULL,
    rd_after double precision NOT NULL,
    vol_after double precision NOT NULL,
    at double precision NOT NULL
);


--
-- Name: converge_seats; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.converge_seats (
    match_id character varying(32) NOT NULL,
    seat integer NOT NULL,
    token_hash character varying(64),
    bot character varying(32),
    replaced boolean NOT NULL,
    clock_left_ms integer
);


--
-- Name: converge_settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.converge_settings (
    key character varying(64) NOT NULL,
    value character varying(256) NOT NULL
);


--
-- Name: converge_name_changes id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.converge_name_changes ALTER COLUMN id SET DEFAULT nextval('public.converge_name_changes_id_seq'::regclass);


--
-- Data for Name: converge_actions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 0, 9, 1, 1796166568.874328, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 1, 21, 1, 1796166568.8884864, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 2, 7, 0, 1796166568.9012442, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 3, 19, 0, 1796166568.912811, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 4, 2, 0, 1796166568.9243212, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 5, 19, 0, 1796166568.935344, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 6, 0, 1, 1796166568.9482946, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 7, 19, 1, 1796166568.960838, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 8, 17, 1, 1796166568.9733486, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 9, 18, 1, 1796166568.9846485, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 10, 8, 1, 1796166568.9961858, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 11, 13, 0, 1796166569.0078104, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 12, 20, 0, 1796166569.0187232, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 13, 0, 1, 1796166569.0311177, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 14, 21, 1, 1796166569.0442576, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 15, 12, 0, 1796166569.0553017, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 16, 18, 0, 1796166569.0680418, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 17, 17, 0, 1796166569.0820339, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 18, 7, 1, 1796166569.0967932, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 19, 21, 1, 1796166569.1114943, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 20, 17, 0, 1796166569.128576, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 21, 20, 0, 1796166569.1460512, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 22, 14, 1, 1796166569.185956, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 23, 18, 1, 1796166569.2357204, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 24, 25, 1, 1796166569.2580144, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 25, 9, 0, 1796166569.2784767, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 26, 20, 0, 1796166569.298171, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 27, 8, 1, 1796166569.3182654, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 28, 18, 1, 1796166569.336629, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 29, 21, 1, 1796166569.353516, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 30, 1, 0, 1796166569.3706489, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 31, 19, 0, 1796166569.3882852, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 32, 15, 0, 1796166569.4070647, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 33, 20, 0, 1796166569.4239259, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 34, 2, 1, 1796166569.4399126, NULL);
INSERT INTO public.converge_actions VALUES ('I0MJdMNwl34Q', 35, 20, 1, 1796166569.4546192, NULL);
INSERT INTO public.converge_actions VALUES ('tRAtud-Le5hp', 0, 2, 1, 1796166569.5029724, NULL);
INSERT INTO public.converge_actions VALUES ('tRAtud-Le5hp', 1, 19, 1, 1796166569.5169559, NULL);
INSERT INTO public.converge_actions VALUES ('tRAtud-Le5hp', 2, 11, 0, 1796166569.5330343, NULL);
INSERT INTO public.converge_actions VALUES ('tRAtud-Le5hp', 3, 19, 0, 1796166569.5498946, NULL);
INSERT INTO public.converge_actions VALUES ('tRAtud-Le5hp', 4, 7, 1, 1796166569.5671551, NULL);
INSERT INTO public.converge_actions VALUES ('tRAtud-Le5hp', 5, 20, 1, 1796166569.5831718, NULL);
INSERT INTO public.converge_actions VALUES ('tRAtud-Le5hp', 6, 8, 0, 1796166569.5974786, NULL);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 0, 16, 1, 1796166569.6930556, 600000);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 1, 20, 1, 1796166569.714248, 599983);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 2, 5, 0, 1796166569.7367973, 599985);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 3, 18, 0, 1796166569.7528012, 599971);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 4, 25, 0, 1796166569.7678163, 599958);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 5, 0, 1, 1796166569.7844775, 599969);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 6, 19, 1, 1796166569.8031929, 599954);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 7, 10, 0, 1796166569.8211844, 599943);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 8, 21, 0, 1796166569.8411465, 599926);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 9, 1, 1, 1796166569.8600895, 599937);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 10, 19, 1, 1796166569.8801026, 599920);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 11, 9, 0, 1796166569.900405, 599908);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 12, 20, 0, 1796166569.9194245, 599891);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 13, 13, 0, 1796166569.9408073, 599873);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 14, 19, 0, 1796166569.9603784, 599856);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 15, 7, 1, 1796166569.9789593, 599904);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 16, 19, 1, 1796166570.002311, 599883);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 17, 2, 1, 1796166570.0268385, 599861);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 18, 19, 1, 1796166570.0482204, 599842);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 19, 6, 0, 1796166570.0709352, 599836);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 20, 20, 0, 1796166570.0927382, 599817);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 21, 12, 0, 1796166570.1150746, 599797);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 22, 19, 0, 1796166570.1360292, 599778);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 23, 5, 1, 1796166570.1576276, 599823);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 24, 19, 1, 1796166570.1813097, 599802);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 25, 8, 0, 1796166570.2057338, 599756);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 26, 21, 0, 1796166570.231488, 599733);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 27, 0, 1, 1796166570.2546413, 599782);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 28, 21, 1, 1796166570.285017, 599754);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 29, 9, 1, 1796166570.3297784, 599717);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 30, 20, 1, 1796166570.3537545, 599696);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 31, 3, 0, 1796166570.3751473, 599714);
INSERT INTO public.converge_actions VALUES ('a67-KqrQDFS_', 32, 19, 0, 1796166570.3988483, 599693);
INSERT INTO public.converge_actions VALUES ('N6EksVnlILX6', 0, 12, 1, 1796166570.547222, NULL);
INSERT INTO public.converge_actions VALUES ('N6EksVnlILX6', 1, 21, 1, 1796166570.5687027, NULL);
INSERT INTO public.converge_actions VALUES ('N6EksVnlILX6', 2, 10, 0, 1796166570.5824776, NULL);
INSERT INTO public.converge_actions VALUES ('N6EksVnlILX6', 3, 19, 0, 1796166570.602682, NULL);
INSERT INTO public.converge_actions VALUES ('N6EksVnlILX6', 4, 2, 1, 1796166570.625759, NULL);
INSERT INTO public.converge_actions VALUES ('N6EksVnlILX6', 5, 18, 1, 1796166570.6417122, NULL);
INSERT INTO public.converge_actions VALUES ('N6EksVnlILX6', 6, 0, 0, 1796166570.659477, NULL);
INSERT INTO public.converge_actions VALUES ('N6EksVnlILX6', 7, 21, 0, 1796166570.6842675, NULL);
INSERT INTO public.converge_actions VALUES ('N6EksVnlILX6', 8, 14, 1, 1796166570.7137475, NULL);
INSERT INTO public.converge_actions VALUES ('N6EksVnlILX6', 9, 20, 1, 1796166570.7532394, NULL);
INSERT INTO public.converge_actions VALUES ('N6EksVnlILX6', 10, 5, 0, 1796166570.771632, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 0, 16, 1, 1796166570.7924945, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 1, 18, 1, 1796166570.7958565, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 2, 6, 1, 1796166570.7984931, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 3, 21, 1, 1796166570.8033118, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 4, 3, 0, 1796166570.8259668, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 5, 18, 0, 1796166570.838702, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 6, 16, 0, 1796166570.854531, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 7, 14, 1, 1796166570.8580027, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 8, 21, 1, 1796166570.8609762, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 9, 0, 0, 1796166570.8713994, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 10, 20, 0, 1796166570.8840473, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 11, 12, 1, 1796166570.8881757, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 12, 20, 1, 1796166570.8907154, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 13, 17, 0, 1796166570.906575, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 14, 21, 0, 1796166570.9361115, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 15, 8, 1, 1796166570.9423153, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 16, 18, 1, 1796166570.9480097, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 17, 0, 1, 1796166570.9556336, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 18, 12, 1, 1796166570.9598615, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 19, 16, 0, 1796166570.993943, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 20, 21, 0, 1796166571.0141733, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 21, 9, 1, 1796166571.0197756, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 22, 19, 1, 1796166571.024888, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 23, 13, 0, 1796166571.0398705, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 24, 19, 0, 1796166571.059747, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 25, 11, 0, 1796166571.0840108, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 26, 20, 0, 1796166571.104231, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 27, 12, 1, 1796166571.1089625, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 28, 21, 1, 1796166571.1126432, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 29, 5, 0, 1796166571.124765, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 30, 20, 0, 1796166571.140801, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 31, 7, 1, 1796166571.145527, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 32, 18, 1, 1796166571.155538, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 33, 12, 1, 1796166571.163112, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 34, 8, 1, 1796166571.1674864, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 35, 2, 0, 1796166571.1822321, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 36, 20, 0, 1796166571.211979, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 37, 3, 1, 1796166571.2232194, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 38, 18, 1, 1796166571.2310772, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 39, 10, 1, 1796166571.2430773, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 40, 16, 0, 1796166571.2723522, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 41, 18, 0, 1796166571.298059, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 42, 7, 0, 1796166571.3198137, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 43, 21, 0, 1796166571.3407223, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 44, 12, 1, 1796166571.3511329, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 45, 19, 1, 1796166571.3585653, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 46, 6, 1, 1796166571.3704276, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 47, 18, 1, 1796166571.3761346, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 48, 5, 1, 1796166571.3830462, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 49, 14, 1, 1796166571.3940704, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 50, 13, 0, 1796166571.429605, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 51, 18, 0, 1796166571.451443, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 52, 16, 0, 1796166571.4739552, NULL);
INSERT INTO public.converge_actions VALUES ('tsmxUh3kIHwW', 53, 21, 0, 1796166571.4968963, NULL);
INSERT INTO public.converge_actions VALUES ('MyoDFbDtwQ24', 0, 4, 0, 1796166571.5397637, NULL);
INSERT INTO public.converge_actions VALUES ('MyoDFbDtwQ24', 1, 21, 0, 1796166571.5573123, NULL);
INSERT INTO public.converge_actions VALUES ('MyoDFbDtwQ24', 2, 2, 1, 1796166571.5618033, NULL);
INSERT INTO public.converge_actions VALUES ('MyoDFbDtwQ24', 3, 18, 1, 1796166571.5669346, NULL);
INSERT INTO public.converge_actions VALUES ('MyoDFbDtwQ24', 4, 25, 1, 1796166571.5724242, NULL);
INSERT INTO public.converge_actions VALUES ('MyoDFbDtwQ24', 5, 10, 0, 1796166571.59745, NULL);
INSERT INTO public.converge_actions VALUES ('MyoDFbDtwQ24', 6, 20, 0, 1796166571.6191156, NULL);
INSERT INTO public.converge_actions VALUES ('MyoDFbDtwQ24', 7, 7, 1, 1796166571.6231136, NULL);
INSERT INTO public.converge_actions VALUES ('MyoDFbDtwQ24', 8, 20, 1, 1796166571.630447, NULL);
INSERT INTO public.converge_actions VALUES ('MyoDFbDtwQ24', 9, 11, 0, 1796166571.656699, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 0, 0, 1, 1796166571.6851125, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 1, 19, 1, 1796166571.6943073, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 2, 6, 0, 1796166571.7214432, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 3, 20, 0, 1796166571.7409875, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 4, 13, 1, 1796166571.7476132, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 5, 21, 1, 1796166571.755953, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 6, 9, 0, 1796166571.7714562, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 7, 18, 0, 1796166571.7891817, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 8, 17, 0, 1796166571.8089738, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 9, 20, 0, 1796166571.8266432, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 10, 11, 1, 1796166571.8326643, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 11, 18, 1, 1796166571.8374484, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 12, 25, 1, 1796166571.8440573, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 13, 8, 0, 1796166571.8734636, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 14, 21, 0, 1796166571.8927424, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 15, 1, 1, 1796166571.898649, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 16, 19, 1, 1796166571.9033303, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 17, 3, 0, 1796166571.9140718, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 18, 19, 0, 1796166571.9267519, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 19, 2, 1, 1796166571.9362848, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 20, 20, 1, 1796166571.9458334, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 21, 4, 0, 1796166571.9811113, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 22, 19, 0, 1796166572.0015442, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 23, 15, 0, 1796166572.023748, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 24, 19, 0, 1796166572.0610993, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 25, 6, 1, 1796166572.0750113, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 26, 21, 1, 1796166572.089336, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 27, 14, 0, 1796166572.1249354, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 28, 19, 0, 1796166572.1442518, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 29, 12, 1, 1796166572.15, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 30, 20, 1, 1796166572.1548378, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 31, 0, 1, 1796166572.1627822, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 32, 18, 1, 1796166572.165642, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 33, 4, 1, 1796166572.1674368, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 34, 6, 1, 1796166572.1687286, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 35, 2, 0, 1796166572.187271, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 36, 18, 0, 1796166572.2052453, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 37, 4, 0, 1796166572.2258189, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 38, 12, 0, 1796166572.2490296, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 39, 9, 0, 1796166572.2830255, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 40, 19, 0, 1796166572.3095036, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 41, 6, 1, 1796166572.3175507, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 42, 18, 1, 1796166572.3245265, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 43, 11, 1, 1796166572.33261, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 44, 20, 1, 1796166572.3452086, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 45, 13, 1, 1796166572.3560174, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 46, 20, 1, 1796166572.3638952, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 47, 10, 1, 1796166572.3679914, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 48, 19, 1, 1796166572.3728702, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 49, 7, 0, 1796166572.4067843, NULL);
INSERT INTO public.converge_actions VALUES ('lXAEZakDVmT2', 50, 21, 0, 1796166572.425523, NULL);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 0, 10, 0, 1796166572.4831078, 300000);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 1, 19, 0, 1796166572.497569, 299988);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 2, 6, 1, 1796166572.5160813, 299984);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 3, 20, 1, 1796166572.5346508, 299968);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 4, 9, 1, 1796166572.5521462, 299953);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 5, 19, 1, 1796166572.5697412, 299938);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 6, 3, 0, 1796166572.5971947, 299963);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 7, 19, 0, 1796166572.6339283, 299930);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 8, 15, 1, 1796166572.6665723, 299911);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 9, 18, 1, 1796166572.6944625, 299893);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 10, 10, 0, 1796166572.7190902, 299912);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 11, 21, 0, 1796166572.7391534, 299894);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 12, 7, 0, 1796166572.7582667, 299877);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 13, 20, 0, 1796166572.795812, 299841);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 14, 8, 1, 1796166572.8140497, 299877);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 15, 21, 1, 1796166572.8303413, 299863);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 16, 11, 1, 1796166572.8498125, 299846);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 17, 21, 1, 1796166572.8708584, 299827);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 18, 5, 0, 1796166572.8934276, 299820);
INSERT INTO public.converge_actions VALUES ('-6t2-I2AK-1H', 19, 19, 0, 1796166572.9107225, 299805);


--
-- Data for Name: converge_lobby_tables; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.converge_lobby_tables VALUES ('I0MJdMNwl34Q', '1nYWh2Jk-RvX', 0, '3fd6e7b15a9611c39887b5145d1b72544997730c4da4de2bd53049f92ea9c039', '["alchemist", "mechanist", "archivist"]', NULL, true, false, 'started', 'x0lCUgR6REpV', 1796166568.7770739, 1796166568.8065364);
INSERT INTO public.converge_lobby_tables VALUES ('a67-KqrQDFS_', 'x0lCUgR6REpV', 1, '918235cabb5320d0ce3502759ed3c43164b778580c1959fac5984094c2e0f568', '["delver", "healer", "merchant"]', 600000, true, false, 'started', '1nYWh2Jk-RvX', 1796166569.6178396, 1796166569.6568534);
INSERT INTO public.converge_lobby_tables VALUES ('_wdcZLGFv7Jl', 'ytfyeIX9AEFe', 1, '3f481fcaeb71688a7537160740725e173cdc6db2b5c7eaa87f8513656c6e0203', '["alchemist", "searcher", "delver"]', NULL, true, false, 'open', NULL, 1796166570.4772542, 1796166570.4772542);


--
-- Data for Name: converge_match_players; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.converge_match_players VALUES ('I0MJdMNwl34Q', 0, '1nYWh2Jk-RvX', true, 'table', 'Ada');
INSERT INTO public.converge_match_players VALUES ('I0MJdMNwl34Q', 1, 'x0lCUgR6REpV', true, 'table', 'Bob');
INSERT INTO public.converge_match_players VALUES ('a67-KqrQDFS_', 0, '1nYWh2Jk-RvX', true, 'table', 'Ada');
INSERT INTO public.converge_match_players VALUES ('a67-KqrQDFS_', 1, 'x0lCUgR6REpV', true, 'table', 'Bob');
INSERT INTO public.converge_match_players VALUES ('N6EksVnlILX6', 1, '1nYWh2Jk-RvX', false, 'invite', 'Ada');


--
-- Data for Name: converge_matches; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.converge_matches VALUES ('I0MJdMNwl34Q', 1796166568.80091, 1796166569.4546192, 'friend', '["alchemist", "mechanist", "archivist"]', 1239340691819587723, 'random', '9b2bc757d80a0b9b', 5758830941119054243, 'over', 36, 0, 'match', NULL, NULL, 'tRAtud-Le5hp', 0);
INSERT INTO public.converge_matches VALUES ('tRAtud-Le5hp', 1796166569.48388, 1796166569.5974786, 'friend', '["alchemist", "mechanist", "archivist"]', 3637582868655951232, '1', '9b2bc757d80a0b9b', 6820932746301223146, 'active', 7, NULL, NULL, NULL, 'I0MJdMNwl34Q', NULL, 0);
INSERT INTO public.converge_matches VALUES ('a67-KqrQDFS_', 1796166569.6521075, 1796166570.3988483, 'friend', '["merchant", "delver", "healer"]', 2024566227313595310, 'random', '63b0c88a03902b78', 7235676741943045716, 'over', 33, 1, 'match', 600000, NULL, NULL, 0);
INSERT INTO public.converge_matches VALUES ('N6EksVnlILX6', 1796166570.4971716, 1796166570.771632, 'friend', '["protector", "searcher", "merchant"]', 7686423997635799458, 'random', '00c614f29e582255', 815434021569621660, 'active', 11, NULL, NULL, NULL, NULL, NULL, 0);
INSERT INTO public.converge_matches VALUES ('tsmxUh3kIHwW', 1796166570.7849674, 1796166571.4968963, 'bot', '["archivist", "merchant", "healer"]', 3858308048930210954, 'random', '4c1c6b3f083b5146', 7182426490739292011, 'over', 54, 1, 'match', NULL, NULL, NULL, 0);
INSERT INTO public.converge_matches VALUES ('MyoDFbDtwQ24', 1796166571.517456, 1796166571.656699, 'bot', '["alchemist", "protector", "healer"]', 3619919494846401173, 'random', '0bdf2a84a2bc4352', 1458928414978697706, 'active', 10, NULL, NULL, NULL, NULL, NULL, 0);
INSERT INTO public.converge_matches VALUES ('lXAEZakDVmT2', 1796166571.6754327, 1796166572.425523, 'bot', '["merchant", "delver", "astropath"]', 7006297448495835596, 'random', '173a20681bd8aafb', 7748052248961257850, 'over', 51, 1, 'match', NULL, NULL, NULL, 0);
INSERT INTO public.converge_matches VALUES ('-6t2-I2AK-1H', 1796166572.4432354, 1796166572.9107225, 'friend', '["delver", "astropath", "healer"]', 1038385859865591065, 'random', 'b724bef41d391f0e', 427728627090427632, 'active', 20, NULL, NULL, 300000, NULL, NULL, 3);
INSERT INTO public.converge_matches VALUES ('lSlOqTabFu9-', 1796166572.9270113, 1796166572.9270113, 'friend', '["archivist", "astropath", "healer"]', 1818779244635249055, 'random', 'dff6f14b6a6eee97', 1802590191794880772, 'active', 0, NULL, NULL, NULL, NULL, NULL, 0);


--
-- Data for Name: converge_name_changes; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.converge_name_changes VALUES (1, 'x0lCUgR6REpV', 1796166570.444753, 'Robert', 'rename');


--
-- Data for Name: converge_players; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.converge_players VALUES ('ytfyeIX9AEFe', '5568bc006338e550929266968dbd22284463877551d252a0e3d9a36acf26fca2', NULL, NULL, 1500, 350, 0.06, 0, 1796166568.7540083, 1796166568.7540083);
INSERT INTO public.converge_players VALUES ('1nYWh2Jk-RvX', '52c20636701683738cb4e72e93e5282e36ce6cfd622bd885c70338187a84352f', 'Ada', 'ada', 1433.0601092699176, 260.48877518890885, 0.06000173569164599, 2, 1796166568.7344944, 1796166570.4067926);
INSERT INTO public.converge_players VALUES ('x0lCUgR6REpV', '10d085e32d48e2b9040de94db3fa54d125d245ee77d7eef9102a4406a85e85f6', 'Robert', 'robert', 1566.9398907300824, 260.48877518890885, 0.06000173569164599, 2, 1796166568.7466457, 1796166570.444753);


--
-- Data for Name: converge_rating_changes; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.converge_rating_changes VALUES ('I0MJdMNwl34Q', '1nYWh2Jk-RvX', 0, 1, 1500, 350, 1662.3108939062977, 290.31896371798047, 0.05999967537233814, 1796166569.4641078);
INSERT INTO public.converge_rating_changes VALUES ('I0MJdMNwl34Q', 'x0lCUgR6REpV', 1, 0, 1500, 350, 1337.6891060937023, 290.31896371798047, 0.05999967537233814, 1796166569.4641078);
INSERT INTO public.converge_rating_changes VALUES ('a67-KqrQDFS_', '1nYWh2Jk-RvX', 0, 0, 1662.3108939062977, 290.31896371798047, 1433.0601092699176, 260.48877518890885, 0.06000173569164599, 1796166570.4067926);
INSERT INTO public.converge_rating_changes VALUES ('a67-KqrQDFS_', 'x0lCUgR6REpV', 1, 1, 1337.6891060937023, 290.31896371798047, 1566.9398907300824, 260.48877518890885, 0.06000173569164599, 1796166570.4067926);


--
-- Data for Name: converge_seats; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.converge_seats VALUES ('I0MJdMNwl34Q', 0, '3fd6e7b15a9611c39887b5145d1b72544997730c4da4de2bd53049f92ea9c039', NULL, false, NULL);
INSERT INTO public.converge_seats VALUES ('I0MJdMNwl34Q', 1, 'cf5831c94a5218b0d46a848dcca69e14f52ffbc9cf96aa986e58f50cc2999b5d', NULL, false, NULL);
INSERT INTO public.converge_seats VALUES ('tRAtud-Le5hp', 0, '3fd6e7b15a9611c39887b5145d1b72544997730c4da4de2bd53049f92ea9c039', NULL, false, NULL);
INSERT INTO public.converge_seats VALUES ('tRAtud-Le5hp', 1, 'cf5831c94a5218b0d46a848dcca69e14f52ffbc9cf96aa986e58f50cc2999b5d', NULL, false, NULL);
INSERT INTO public.converge_seats VALUES ('-6t2-I2AK-1H', 1, 'de10900c0a0a3b369db42da797a3dff8a9572d3cb16a48291749aaae37aaaba4', NULL, false, 299827);
INSERT INTO public.converge_seats VALUES ('-6t2-I2AK-1H', 0, '470340969545811a86150905d50788a33b903b8a556ccd2d88ca08cf2893bb2e', NULL, false, 299805);
INSERT INTO public.converge_seats VALUES ('lSlOqTabFu9-', 0, '2463488fff6414b713c5ad0c388ba4b537dced33bfb6cef47ebd2bf80ced4aa1', NULL, false, NULL);
INSERT INTO public.converge_seats VALUES ('lSlOqTabFu9-', 1, '59dd6e1ff5a41f3484de1e9170f699b25666e5d60c96681a26d06031e465f53b', NULL, false, NULL);
INSERT INTO public.converge_seats VALUES ('a67-KqrQDFS_', 1, '918235cabb5320d0ce3502759ed3c43164b778580c1959fac5984094c2e0f568', NULL, false, 599696);
INSERT INTO public.converge_seats VALUES ('a67-KqrQDFS_', 0, '410032fc156f56bda76b2bd1aff86e2580ada6e4c2a1f56aef7be9b92a9f9fb7', NULL, false, 599693);
INSERT INTO public.converge_seats VALUES ('N6EksVnlILX6', 0, '99bceba46e5a2c311be358c6fd9cdb1bc1e6743630c3ef1a2d1c1a2d4f106f7d', NULL, false, NULL);
INSERT INTO public.converge_seats VALUES ('N6EksVnlILX6', 1, '9749bb490797c7328c8d9da38efbb96fe0ef3a0effd5b06022f8181fcfa0ef8e', NULL, false, NULL);
INSERT INTO public.converge_seats VALUES ('tsmxUh3kIHwW', 0, '72d4ffefe9ec96c45f0ca2fb9cab5e23721c4b15ca270a07a90203565b0e115f', NULL, false, NULL);
INSERT INTO public.converge_seats VALUES ('tsmxUh3kIHwW', 1, NULL, 'greedy', false, NULL);
INSERT INTO public.converge_seats VALUES ('MyoDFbDtwQ24', 0, 'bcb07ba21c7c1c03d2e383c69e2085f0d97df49e782e9260f8ac469749a24b77', NULL, false, NULL);
INSERT INTO public.converge_seats VALUES ('MyoDFbDtwQ24', 1, NULL, 'random', false, NULL);
INSERT INTO public.converge_seats VALUES ('lXAEZakDVmT2', 0, '722da964c7322aa744d7c58a1b1060a1f87d9585d0def1d2f6f2a6cd96680d6c', NULL, false, NULL);
INSERT INTO public.converge_seats VALUES ('lXAEZakDVmT2', 1, NULL, 'easy', false, NULL);


--
-- Data for Name: converge_settings; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.converge_settings VALUES ('schema_version', '4');
INSERT INTO public.converge_settings VALUES ('name_rules_version', 'rules-2/disarm-key-10/unicode-17.0.0');


--
-- Name: converge_name_changes_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.converge_name_changes_id_seq', 1, true);


--
-- Name: converge_actions converge_actions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.converge_actions
    ADD CONSTRAINT converge_actions_pkey PRIMARY KEY (match_id, idx);


--
-- Name: converge_lobby_tables converge_lobby_tables_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.converge_lobby_tables
    ADD CONSTRAINT converge_lobby_tables_pkey PRIMARY KEY (id);


--
-- Name: converge_match_players converge_match_players_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.converge_match_players
    ADD CONSTRAINT converge_match_players_pkey PRIMARY KEY (match_id, seat);


--
-- Name: converge_matches converge_matches_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.converge_matches
    ADD CONSTRAINT converge_matches_pkey PRIMARY KEY (id);


--
-- Name: converge_name_changes converge_name_changes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.converge_name_changes
    ADD CONSTRAINT converge_name_changes_pkey PRIMARY KEY (id);


--
-- Name: converge_players converge_players_name_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.converge_players
    ADD CONSTRAINT converge_players_name_key_key UNIQUE (name_key);


--
-- Name: converge_players converge_players_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.converge_players
    ADD CONSTRAINT converge_players_pkey PRIMARY KEY (id);


--
-- Name: converge_players converge_players_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.converge_players
    ADD CONSTRAINT converge_players_token_hash_key UNIQUE (token_hash);


--
-- Name: converge_rating_changes converge_rating_changes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.converge_rating_changes
    ADD CONSTRAINT converge_rating_changes_pkey PRIMARY KEY (match_id, player_id);


--
-- Name: converge_seats converge_seats_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.converge_seats
    ADD CONSTRAINT converge_seats_pkey PRIMARY KEY (match_id, seat);


--
-- Name: converge_settings converge_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.converge_settings
    ADD CONSTRAINT converge_settings_pkey PRIMARY KEY (key);


--
-- Name: converge_lobby_tables_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX converge_lobby_tables_status ON public.converge_lobby_tables USING btree (status, created_at);


--
-- Name: converge_matches_status_updated; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX converge_matches_status_updated ON public.converge_matches USING btree (status, updated_at);


--
-- Name: ix_converge_match_players_player_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_converge_match_players_player_id ON public.converge_match_players USING btree (player_id);


--
-- Name: ix_converge_name_changes_player_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_converge_name_changes_player_id ON public.converge_name_changes USING btree (player_id);


--
-- Name: converge_actions converge_actions_match_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.converge_actions
    ADD CONSTRAINT converge_actions_match_id_fkey FOREIGN KEY (match_id) REFERENCES public.converge_matches(id);


--
-- Name: converge_seats converge_seats_match_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.converge_seats
    ADD CONSTRAINT converge_seats_match_id_fkey FOREIGN KEY (match_id) REFERENCES public.converge_matches(id);


--
-- PostgreSQL database dump complete
--


