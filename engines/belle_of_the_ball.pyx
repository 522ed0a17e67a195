"""Belle of the Ball (Daniel Solis, 2013): rules in RULES.md sections 4 and 7.3.

The 60 guests and the 27 Belles are data (engines/data/belle_guests.json, belle_belles.json), read at
import into C tables, so corrected card texts replace them without code changes.

A turn is a few small decisions by the same player (RULES.md 4.3):
  step 1  play a Belle from hand, or not; then its target, if it has one;
  step 2  take a card from a line at position k; a Guest is then placed in one of your groups;
  step 3  (automatic) every full group of yours is scored and discarded; the next player's turn begins.
Step 1 is skipped automatically when no Belle in hand can be played; step 2 when no card can be taken.

Action ids (127 in all; names in brackets are what action_to_string prints):
    0..31     play Belle b from hand                          ["play <Belle>"]
    32        play no Belle this turn                         ["no Belle"]
    33..38    take the Guest at line position k+1 (k = 0..5;
              the k skipped cards each get one of your Regrets) ["take guest k+1"]
    39..44    take the Belle at line position k+1             ["take Belle k+1"]
    45..47    one of your own groups g+1: where a taken Guest goes, the target of a Mirth Belle, or
              the destination of a guest moved by May I Cut In? / Musical Chairs   ["group g+1"]
    48..62    group g+1 of player q (48 + 3q + g): the target of a Mischief Belle   ["player q group g+1"]
    63..126   guest i (by card): the guest a Mayhem Belle acts on  ["guest <name>"]
Players are numbered from 0, groups and line positions from 1 in the names. Position 6 of a line is
the face-up top of its deck.

Scores are kept doubled (integers) because of the half points at the end of the game.
Parameters: match_count = instances (RULES.md 4.7 #2) | pairs; score_on_final_turn = false (4.7 #4) | true.

Decisions where RULES.md is silent:
- Both deck orders are shuffled at the deal and kept in the position; determinize reshuffles the
  unseen guests (deck below its top plus the Regrets' faces, one pool) and the Belle deck below its top.
- The game ends whenever the guest line becomes empty, also when Next, Please discards the last
  Guest; with score_on_final_turn the player's step 3 happens first (and step 2 is skipped then).
- A Belle being played has left the hand while its target is chosen. Loves a Crowd counts the Belles
  in every group of every party (not itself, not hands). May I Cut In? may take a guest from a full
  group. Regrets Only takes one Regret from each opponent holding any.
- A group's score: base, plus the modifiers, floored at 0, then halved once per A Scene. Under
  match_count=pairs, Matchmaker still makes the base the number of icons.
- A step with a single choice is still a decision, except step 1, which is skipped when no Belle in
  hand can be played.
"""
import json
import os
from libc.stdint cimport uint64_t, uint32_t, int32_t, uint8_t
from libc.string cimport memset, memcpy
from engines.core cimport GameState, Rng, action_t, rng_seed, rng_next, rng_below, rng_shuffle
from engines.registry import engine_params
from engines.events import Event, ended
cimport cython

cdef extern from *:
    int __builtin_ctz(unsigned int) nogil
    int __builtin_popcount(unsigned int) nogil

DEF MAXP = 5        # players
DEF MAXG = 64       # guest cards the tables can hold
DEF MAXB = 32       # Belle cards the tables can hold
DEF MAXI = 16       # interests
DEF MAXR = 16       # Regrets in play (3 x 5 or 4 x 2)
DEF LINE = 6        # visible cards per line (5 + the deck top)
DEF NGROUPS = 3
DEF GSIZE = 4
DEF BELLE_CODE = 64 # a Belle b inside a group is stored as card code 64 + b
DEF NONE = 255

DEF A_PLAY = 0
DEF A_PASS = 32
DEF A_TAKE_GUEST = 33
DEF A_TAKE_BELLE = 39
DEF A_GROUP = 45
DEF A_OPP = 48
DEF A_GUEST = 63
DEF N_ACTIONS = 127

# phases of a turn
DEF PH_BELLE = 0     # step 1: play a Belle or not
DEF PH_MIRTH = 1     # choose one of your groups for the Belle
DEF PH_MISCHIEF = 2  # choose an opponent's group for the Belle
DEF PH_PICK = 3      # choose the guest a Mayhem Belle acts on
DEF PH_DEST = 4      # choose your group for a moved guest
DEF PH_TAKE = 5      # step 2: take a card
DEF PH_PLACE = 6     # place the taken Guest
DEF PH_OVER = 7

# Belle modes and effects (the names used in belle_belles.json)
DEF M_MIRTH = 0
DEF M_MISCHIEF = 1
DEF M_MAYHEM = 2
MODES = ("mirth", "mischief", "mayhem")

DEF E_PER_ICON = 0
DEF E_PER_NOBLE = 1
DEF E_FLAT = 2
DEF E_MATCH_ALL = 3
DEF E_FULL = 4
DEF E_HALVE = 5
DEF E_CROWD = 6
DEF E_STEAL = 7
DEF E_MOVE_OWN = 8
DEF E_TAKE_REGRETS = 9
DEF E_DISCARD_GUEST = 10
DEF E_NEXT_PLEASE = 11
DEF E_SWITCH = 12
DEF E_POINTS = 13
DEF E_NOBLE_PARTY = 14
EFFECTS = ("per_icon", "per_noble", "flat", "match_all", "full", "halve", "per_belle_in_parties",
           "steal_guest", "move_own_guest", "take_regrets", "discard_guest", "next_please",
           "switch_with_line", "points", "per_noble_in_party")
GROUP_EFFECTS = EFFECTS[:6]

# what must exist for a Belle to be playable (RULES.md 7.3: no target, no play)
DEF R_NONE = 0
DEF R_OWN_OPEN = 1      # a non-full group of yours
DEF R_OPP_OPEN = 2      # a non-full group of an opponent
DEF R_STEAL = 3         # a guest in an opponent's party, and a non-full group of yours
DEF R_MOVE = 4          # a guest of yours and a non-full group of yours other than its own
DEF R_OPP_REGRET = 5    # an opponent with a Regret
DEF R_ANY_GUEST = 6     # a guest in any party
DEF R_OWN_GUEST = 7     # a guest of yours (the first Guest of the line always exists during play)
DEF N_REQ = 8

# Move patterns (c_move_patterns, for a learned playout policy), each from what the mover sees:
DEF PAT_TAKE_GUEST = 0    # + (k * 3 + its Regrets, at most 2) * 4 + its best match in an open group: 72
DEF PAT_TAKE_BELLE = 72   # + (k * 3 + its Regrets, at most 2) * 3 + the Belle's mode: 54
DEF PAT_GROUP = 126       # + ((place, move, Mirth) * 4 + cards in the group) * 4 + the guest's match (a Mirth Belle: 0): 48
DEF PAT_OPP = 174         # + cards in the group * 4 + its points now (0, 1-3, 4-6, 7 and up): 16
DEF PAT_PLAY = 190        # + the Belle played (MAXB of them), or + MAXB for no Belle: 33
DEF PAT_PICK = 223        # + 0 for a guest of the mover's, 1 for another player's
DEF MOVE_PATTERNS = 225


cdef struct BellePos:
    uint64_t gdiscard                 # discarded guests (public), bit per guest
    int32_t score2[8]                 # doubled scores
    uint32_t hand[8]                  # Belles in hand, bit per Belle
    uint32_t bdiscard                 # discarded Belles (public)
    uint32_t playable                 # in step 1: the Belles in hand that can be played (derived)
    uint8_t cards[MAXP][NGROUPS][GSIZE]   # groups: guest ids, or BELLE_CODE + Belle
    uint8_t gcount[MAXP][NGROUPS]     # cards in each group
    uint8_t gfull[MAXP][NGROUPS]      # group made full by an effect (RUSHED)
    uint8_t gguests[MAXP][NGROUPS]    # guests in each group (derived)
    uint8_t gdeck[MAXG]               # guest line then deck: gdeck[ghead + k] is line position k+1
    uint8_t bdeck[MAXB]               # Belle line then deck
    uint8_t regface[MAXR]             # the guests that are Regrets (nobody sees them)
    uint8_t greg[8]                   # Regrets beside guest line positions 1..6
    uint8_t breg[8]                   # Regrets beside Belle line positions 1..6
    uint8_t regrets[8]                # Regrets each player holds
    uint8_t ghead
    uint8_t gend
    uint8_t bhead
    uint8_t bend
    uint8_t nplayers
    uint8_t to_move
    uint8_t first_player
    uint8_t phase
    uint8_t pend_belle                # the Belle being played (step 1)
    uint8_t pend_guest                # the Guest taken, or moved by a Belle, waiting for its group
    uint8_t pend_group                # Musical Chairs: the group the guest left
    uint8_t over
    uint8_t nregface
    uint8_t pairs                     # match_count=pairs
    uint8_t final_turn                # score_on_final_turn
    uint8_t ending                    # the last Guest was taken; the turn ends the game
    uint8_t _pad[7]


# ---- the card tables, filled from the data files at import ----
cdef int NG = 0, NB = 0, NI = 0
cdef uint8_t G_ICON[MAXG][4]
cdef uint8_t G_NICON[MAXG]
cdef uint8_t G_NOBLE[MAXG]
cdef uint32_t G_MASK[MAXG]       # bit i set if the guest has interest i
cdef uint8_t B_MODE[MAXB]
cdef uint8_t B_EFFECT[MAXB]
cdef uint8_t B_ICON[MAXB]
cdef int B_POINTS[MAXB]
cdef uint32_t REQ_MASK[N_REQ]

_DATA = os.path.join(os.path.dirname(__file__), "data")


def _check_cards(interests, guests, belles):
    """Raises ValueError (one line) unless the data fits the engine: checked before any table changes."""
    if len(interests) > MAXI or not 31 <= len(guests) <= MAXG or len(belles) > MAXB:
        raise ValueError(f"belle data: at most {MAXI} interests, 31 to {MAXG} guests, {MAXB} Belles")
    for g in guests:
        icons = g["interests"]
        if not 1 <= len(icons) <= 4 or len(set(icons)) != len(icons) or not set(icons) <= set(interests):
            raise ValueError(f"belle data: guest {g['name']!r} needs 1 to 4 distinct known interests")
    for b in belles:
        if b.get("mode") not in MODES or b.get("effect") not in EFFECTS:
            raise ValueError(f"belle data: {b['name']!r}: unknown mode or effect")
        if (b["mode"] == "mayhem") == (b["effect"] in GROUP_EFFECTS):
            raise ValueError(f"belle data: {b['name']!r}: a {b['mode']} Belle cannot have effect {b['effect']!r}")
        if b["effect"] == "per_icon" and b.get("icon") not in interests:
            raise ValueError(f"belle data: {b['name']!r}: per_icon needs a known icon")


def _load_cards(guest_file=None, belle_file=None):
    """Reads the guest and Belle data into the C tables; returns (interests, guests, belles)."""
    global NG, NB, NI
    with open(guest_file or os.path.join(_DATA, "belle_guests.json")) as f:
        gdoc = json.load(f)
    with open(belle_file or os.path.join(_DATA, "belle_belles.json")) as f:
        bdoc = json.load(f)
    interests = [x for tier in gdoc["interests"].values() for x in tier]
    guests, belles = gdoc["guests"], bdoc["belles"]
    _check_cards(interests, guests, belles)
    cdef int i, j, r
    for i, g in enumerate(guests):
        G_NICON[i] = len(g["interests"])
        G_NOBLE[i] = g.get("honorific", "") in ("Lord", "Lady")
        G_MASK[i] = 0
        for j, name in enumerate(g["interests"]):
            G_ICON[i][j] = interests.index(name)
            G_MASK[i] |= 1U << G_ICON[i][j]
    for r in range(N_REQ):
        REQ_MASK[r] = 0
    for i, b in enumerate(belles):
        B_MODE[i] = MODES.index(b["mode"])
        B_EFFECT[i] = EFFECTS.index(b["effect"])
        B_ICON[i] = interests.index(b["icon"]) if "icon" in b else 0
        B_POINTS[i] = int(b.get("points", b.get("count", 0)))
        if B_MODE[i] == M_MIRTH:
            r = R_OWN_OPEN
        elif B_MODE[i] == M_MISCHIEF:
            r = R_OPP_OPEN
        else:
            r = {E_STEAL: R_STEAL, E_MOVE_OWN: R_MOVE, E_TAKE_REGRETS: R_OPP_REGRET,
                 E_DISCARD_GUEST: R_ANY_GUEST, E_SWITCH: R_OWN_GUEST}.get(B_EFFECT[i], R_NONE)
        REQ_MASK[r] |= 1U << i
    NG, NB, NI = len(guests), len(belles), len(interests)
    return interests, guests, belles


INTERESTS, GUESTS, BELLES = _load_cards()
with open(os.path.join(_DATA, "belle_guests.json")) as _f:
    INTEREST_TIER = {i: tier for tier, names in json.load(_f)["interests"].items() for i in names}
GUEST_NAMES = [g["name"] for g in GUESTS]
BELLE_NAMES = [b["name"] for b in BELLES]
_GUEST_ID = {n: i for i, n in enumerate(GUEST_NAMES)}
_BELLE_ID = {n: i for i, n in enumerate(BELLE_NAMES)}
_GUEST_CARD = {g["name"]: g for g in GUESTS}
_BELLE_CARD = {b["name"]: b for b in BELLES}


def _action_names():
    names = []
    for b in range(32):
        names.append("play " + (BELLE_NAMES[b] if b < len(BELLE_NAMES) else f"Belle #{b}"))
    names.append("no Belle")
    names += [f"take guest {k + 1}" for k in range(LINE)]
    names += [f"take Belle {k + 1}" for k in range(LINE)]
    names += [f"group {g + 1}" for g in range(NGROUPS)]
    names += [f"player {q} group {g + 1}" for q in range(MAXP) for g in range(NGROUPS)]
    names += ["guest " + (GUEST_NAMES[i] if i < len(GUEST_NAMES) else f"#{i}") for i in range(MAXG)]
    return names


ACTION_NAMES = _action_names()
_ACTION_ID = {" ".join(n.lower().split()): a for a, n in enumerate(ACTION_NAMES)}
PHASE_NAMES = ("play a Belle", "choose your group for the Belle", "choose an opponent's group for the Belle",
               "choose a guest", "choose your group for the guest", "take a card", "place the guest", "over")


# ---------------------------------------------------------------------- rules on the position
cdef inline bint _is_full(BellePos* s, int p, int g) noexcept nogil:
    return s.gcount[p][g] >= GSIZE or s.gfull[p][g]

cdef inline int _open_groups(BellePos* s, int p) noexcept nogil:
    """Bit g set for each non-full group g of p."""
    cdef int g, m = 0
    for g in range(NGROUPS):
        if not _is_full(s, p, g):
            m |= 1 << g
    return m

cdef inline int _guest_groups(BellePos* s, int p) noexcept nogil:
    """Bit g set for each group of p holding at least one guest."""
    cdef int g, m = 0
    for g in range(NGROUPS):
        if s.gguests[p][g]:
            m |= 1 << g
    return m

cdef inline int _glen(BellePos* s) noexcept nogil:
    cdef int n = s.gend - s.ghead
    return n if n < LINE else LINE

cdef inline int _blen(BellePos* s) noexcept nogil:
    cdef int n = s.bend - s.bhead
    return n if n < LINE else LINE

cdef uint32_t _playable(BellePos* s, int p) noexcept nogil:
    """The Belles in p's hand that have a target now."""
    cdef uint32_t hand = s.hand[p]
    cdef uint32_t ok
    cdef int q, own_open, own_guests, opp_open = 0, opp_guest = 0, opp_regret = 0, g
    if hand == 0:
        return 0
    own_open = _open_groups(s, p)
    own_guests = _guest_groups(s, p)
    if hand & (REQ_MASK[R_OPP_OPEN] | REQ_MASK[R_STEAL] | REQ_MASK[R_OPP_REGRET] | REQ_MASK[R_ANY_GUEST]):
        for q in range(s.nplayers):
            if q != p:
                opp_open |= _open_groups(s, q)
                opp_guest |= _guest_groups(s, q)
                opp_regret |= s.regrets[q]
    ok = REQ_MASK[R_NONE]
    if own_open:
        ok |= REQ_MASK[R_OWN_OPEN]
        if opp_guest:
            ok |= REQ_MASK[R_STEAL]
        for g in range(NGROUPS):
            if (own_guests >> g) & 1 and own_open & ~(1 << g):
                ok |= REQ_MASK[R_MOVE]
                break
    if opp_open:
        ok |= REQ_MASK[R_OPP_OPEN]
    if opp_regret:
        ok |= REQ_MASK[R_OPP_REGRET]
    if own_guests:
        ok |= REQ_MASK[R_OWN_GUEST] | REQ_MASK[R_ANY_GUEST]
    elif opp_guest:
        ok |= REQ_MASK[R_ANY_GUEST]
    return hand & ok

cdef int _group_points(BellePos* s, int p, int g) noexcept nogil:
    """Real points of group g of p if scored now (RULES.md 4.3 step 3, 4.7 #2, 7.3)."""
    cdef uint32_t m[GSIZE]
    cdef uint32_t seen = 0, twice = 0
    cdef int i, j, c, b, ng = 0, nobles = 0, icons = 0, base = 0, mods = 0, halves = 0, match_all = 0
    cdef int n = s.gcount[p][g]
    for i in range(n):
        c = s.cards[p][g][i]
        if c < BELLE_CODE:
            m[ng] = G_MASK[c]
            twice |= seen & G_MASK[c]
            seen |= G_MASK[c]
            nobles += G_NOBLE[c]
            icons += G_NICON[c]
            ng += 1
    for i in range(n):
        c = s.cards[p][g][i]
        if c >= BELLE_CODE:
            b = c - BELLE_CODE
            if B_EFFECT[b] == E_PER_ICON:
                for j in range(ng):
                    mods += B_POINTS[b] * <int>((m[j] >> B_ICON[b]) & 1)
            elif B_EFFECT[b] == E_PER_NOBLE:
                mods += B_POINTS[b] * nobles
            elif B_EFFECT[b] == E_FLAT:
                mods += B_POINTS[b]
            elif B_EFFECT[b] == E_MATCH_ALL:
                match_all = 1
            elif B_EFFECT[b] == E_HALVE:
                halves += 1
    if match_all:
        base = icons
    elif s.pairs:                       # sum over interests of C(count, 2): the matching pairs of guests
        for i in range(ng):
            for j in range(i + 1, ng):
                base += __builtin_popcount(m[i] & m[j])
    else:                               # every icon whose interest is on another guest too
        for i in range(ng):
            base += __builtin_popcount(m[i] & twice)
    base += mods
    if base < 0:
        base = 0
    for i in range(halves):
        base >>= 1
    return base

cdef inline void _group_add(BellePos* s, int p, int g, int code) noexcept nogil:
    s.cards[p][g][s.gcount[p][g]] = code
    s.gcount[p][g] += 1
    s.gguests[p][g] += code < BELLE_CODE

cdef inline void _group_remove(BellePos* s, int p, int g, int i) noexcept nogil:
    cdef int j, n = s.gcount[p][g]
    s.gguests[p][g] -= s.cards[p][g][i] < BELLE_CODE
    for j in range(i, n - 1):
        s.cards[p][g][j] = s.cards[p][g][j + 1]
    s.cards[p][g][n - 1] = 0
    s.gcount[p][g] = n - 1

cdef inline double _promise(BellePos* s, int p, int g) noexcept nogil:
    """What group g of p would score now, plus 1.75 per free place while it is open."""
    if _is_full(s, p, g):
        return _group_points(s, p, g)
    return _group_points(s, p, g) + 1.75 * (GSIZE - s.gcount[p][g])

cdef double _party(BellePos* s, int p, int takes) noexcept nogil:
    """p's groups: a full one at its points; an open one at its _promise while the guests p can
    still take (`takes`, spent on the groups with the fewest free places first) can fill it, and
    otherwise at the half point per card it brings if the game ends first (RULES.md 4.4)."""
    cdef int g, k, free[NGROUPS]
    cdef int done = 0
    cdef double v = 0.0
    for g in range(NGROUPS):
        free[g] = 0 if _is_full(s, p, g) else GSIZE - s.gcount[p][g]
        if free[g] == 0:
            v += _group_points(s, p, g)
            done |= 1 << g
    while done != (1 << NGROUPS) - 1:
        k = -1
        for g in range(NGROUPS):
            if not (done >> g) & 1 and (k < 0 or free[g] < free[k]):
                k = g
        done |= 1 << k
        if free[k] <= takes:
            takes -= free[k]
            v += _promise(s, p, k)
        else:
            v += 0.5 * s.gcount[p][k]
    return v

cdef inline void _line_remove(uint8_t* deck, uint8_t* head, uint8_t* reg, int k) noexcept nogil:
    """Removes line position k+1; the cards behind move up with their Regrets (RULES.md 4.3, 4.7 #6)."""
    cdef int i, h = head[0]
    for i in range(k, 0, -1):
        deck[h + i] = deck[h + i - 1]
    deck[h] = 0
    head[0] = h + 1
    for i in range(k, LINE - 1):
        reg[i] = reg[i + 1]
    reg[LINE - 1] = 0

cdef inline int _line_take(uint8_t* deck, uint8_t* head, uint8_t* reg, int k, uint8_t* regrets) noexcept nogil:
    """Takes line position k+1: one of the taker's Regrets beside each skipped card, the Regrets
    beside the card taken gained (RULES.md 4.3 step 2); returns the card."""
    cdef int i, c = deck[head[0] + k]
    regrets[0] += reg[k] - k
    for i in range(k):
        reg[i] += 1
    _line_remove(deck, head, reg, k)
    return c

cdef void _step3(BellePos* s, int p) noexcept nogil:
    """Scores and discards every full group of p."""
    cdef int g, i, c
    for g in range(NGROUPS):
        if _is_full(s, p, g):
            s.score2[p] += 2 * _group_points(s, p, g)
            for i in range(s.gcount[p][g]):
                c = s.cards[p][g][i]
                if c < BELLE_CODE:
                    s.gdiscard |= 1ULL << c
                else:
                    s.bdiscard |= 1U << (c - BELLE_CODE)
                s.cards[p][g][i] = 0
            s.gcount[p][g] = 0
            s.gguests[p][g] = 0
            s.gfull[p][g] = 0

cdef void _finish(BellePos* s) noexcept nogil:
    """The end (RULES.md 4.4): half a point per Guest, Belle and Regret each player possesses."""
    cdef int p, g, held
    for p in range(s.nplayers):
        held = s.regrets[p] + __builtin_popcount(s.hand[p])
        for g in range(NGROUPS):
            held += s.gcount[p][g]
        if p == s.to_move and s.pend_guest != NONE:
            held += 1      # the last Guest, taken but not placed: the game ended at once
        s.score2[p] += held
    s.over = 1
    s.phase = PH_OVER

cdef void _end_turn(BellePos* s) noexcept nogil:
    _step3(s, s.to_move)
    s.to_move = (s.to_move + 1) % s.nplayers
    _start_turn(s)

cdef void _start_turn(BellePos* s) noexcept nogil:
    s.playable = _playable(s, s.to_move)
    if s.playable:
        s.phase = PH_BELLE
    else:
        _to_take(s)

cdef void _to_take(BellePos* s) noexcept nogil:
    """Step 2, unless no card can be taken (all groups full and no Belle in line: RULES.md 4.3, 4.7 #9)."""
    if _blen(s) > 0 or (_glen(s) > 0 and _open_groups(s, s.to_move)):
        s.phase = PH_TAKE
    else:
        _end_turn(s)

cdef void _guest_line_empty(BellePos* s) noexcept nogil:
    """The last Guest left the line (RULES.md 4.4, 4.7 #4): the game ends at once, or, with
    score_on_final_turn, after this player's step 3."""
    if s.final_turn:
        _step3(s, s.to_move)
    _finish(s)

cdef void _after_belle(BellePos* s) noexcept nogil:
    s.pend_belle = NONE
    s.pend_guest = NONE
    s.pend_group = NONE
    _to_take(s)

cdef inline int _find_guest(BellePos* s, int x, int* gp, int* gg) noexcept nogil:
    """Index of guest x in its group (and its player and group in gp, gg); -1 if in no party."""
    cdef int p, g, i
    for p in range(s.nplayers):
        for g in range(NGROUPS):
            for i in range(s.gcount[p][g]):
                if s.cards[p][g][i] == x:
                    gp[0] = p
                    gg[0] = g
                    return i
    return -1

cdef int _legal(BellePos* s, action_t* out) noexcept nogil:
    cdef int p = s.to_move, n = 0, k, lim, q, g, i, c, open_
    cdef uint32_t bm
    cdef int ph = s.phase
    if ph == PH_TAKE:
        lim = s.regrets[p] + 1
        if _open_groups(s, p):
            k = _glen(s)
            for i in range(k if k < lim else lim):
                out[n] = A_TAKE_GUEST + i
                n += 1
        k = _blen(s)
        for i in range(k if k < lim else lim):
            out[n] = A_TAKE_BELLE + i
            n += 1
    elif ph == PH_PLACE or ph == PH_MIRTH or ph == PH_DEST:
        open_ = _open_groups(s, p)
        for g in range(NGROUPS):
            if (open_ >> g) & 1 and not (ph == PH_DEST and g == s.pend_group):
                out[n] = A_GROUP + g
                n += 1
    elif ph == PH_BELLE:
        bm = s.playable
        while bm:
            out[n] = A_PLAY + __builtin_ctz(bm)
            n += 1
            bm &= bm - 1
        out[n] = A_PASS
        n += 1
    elif ph == PH_MISCHIEF:
        for q in range(s.nplayers):
            if q != p:
                for g in range(NGROUPS):
                    if not _is_full(s, q, g):
                        out[n] = A_OPP + 3 * q + g
                        n += 1
    elif ph == PH_PICK:
        k = B_EFFECT[s.pend_belle]
        open_ = _open_groups(s, p)
        for q in range(s.nplayers):
            if (k == E_STEAL and q == p) or ((k == E_MOVE_OWN or k == E_SWITCH) and q != p):
                continue
            for g in range(NGROUPS):
                if k == E_MOVE_OWN and not (open_ & ~(1 << g)):
                    continue
                for i in range(s.gcount[q][g]):
                    c = s.cards[q][g][i]
                    if c < BELLE_CODE:
                        out[n] = A_GUEST + c
                        n += 1
    return n

cdef void _apply(BellePos* s, int a) noexcept nogil:
    cdef int p = s.to_move, b, k, q, g, i, x, e, cnt
    cdef int gp = 0, gg = 0
    if a >= A_GUEST:                                   # the guest a Mayhem Belle acts on
        x = a - A_GUEST
        e = B_EFFECT[s.pend_belle]
        i = _find_guest(s, x, &gp, &gg)
        if e == E_SWITCH:
            s.cards[gp][gg][i] = s.gdeck[s.ghead]
            s.gdeck[s.ghead] = x
            _after_belle(s)
            return
        _group_remove(s, gp, gg, i)
        if e == E_DISCARD_GUEST:
            s.gdiscard |= 1ULL << x
            _after_belle(s)
            return
        s.pend_guest = x
        s.pend_group = gg if e == E_MOVE_OWN else NONE
        s.phase = PH_DEST
    elif a >= A_OPP:                                   # Mischief target
        q = (a - A_OPP) // 3
        g = (a - A_OPP) % 3
        _group_add(s, q, g, BELLE_CODE + s.pend_belle)
        if B_EFFECT[s.pend_belle] == E_FULL:
            s.gfull[q][g] = 1
        _after_belle(s)
    elif a >= A_GROUP:                                 # one of my groups
        g = a - A_GROUP
        if s.phase == PH_PLACE:
            _group_add(s, p, g, s.pend_guest)
            s.pend_guest = NONE
            if s.ending:
                _guest_line_empty(s)
            else:
                _end_turn(s)
        elif s.phase == PH_MIRTH:
            _group_add(s, p, g, BELLE_CODE + s.pend_belle)
            if B_EFFECT[s.pend_belle] == E_FULL:
                s.gfull[p][g] = 1
            _after_belle(s)
        else:                                          # PH_DEST
            _group_add(s, p, g, s.pend_guest)
            _after_belle(s)
    elif a >= A_TAKE_BELLE:
        s.hand[p] |= 1U << _line_take(s.bdeck, &s.bhead, s.breg, a - A_TAKE_BELLE, &s.regrets[p])
        _end_turn(s)
    elif a >= A_TAKE_GUEST:
        s.pend_guest = _line_take(s.gdeck, &s.ghead, s.greg, a - A_TAKE_GUEST, &s.regrets[p])
        if s.ghead == s.gend:
            if s.final_turn:
                s.ending = 1
                s.phase = PH_PLACE
            else:
                _finish(s)
        else:
            s.phase = PH_PLACE
    elif a == A_PASS:
        s.playable = 0
        _to_take(s)
    else:                                              # play Belle b from hand
        b = a - A_PLAY
        s.playable = 0
        s.hand[p] &= ~(1U << b)
        s.pend_belle = b
        if B_MODE[b] == M_MIRTH:
            s.phase = PH_MIRTH
            return
        if B_MODE[b] == M_MISCHIEF:
            s.phase = PH_MISCHIEF
            return
        s.bdiscard |= 1U << b
        e = B_EFFECT[b]
        if e == E_STEAL or e == E_MOVE_OWN or e == E_DISCARD_GUEST or e == E_SWITCH:
            s.phase = PH_PICK
            return
        if e == E_CROWD:
            cnt = 0
            for q in range(s.nplayers):
                for g in range(NGROUPS):
                    for i in range(s.gcount[q][g]):
                        cnt += s.cards[q][g][i] >= BELLE_CODE
            s.score2[p] += 2 * B_POINTS[b] * cnt
        elif e == E_TAKE_REGRETS:
            for q in range(s.nplayers):
                if q != p:
                    k = B_POINTS[b] if B_POINTS[b] < s.regrets[q] else s.regrets[q]
                    s.regrets[q] -= k
                    s.regrets[p] += k
        elif e == E_NEXT_PLEASE:
            s.gdiscard |= 1ULL << _line_take(s.gdeck, &s.ghead, s.greg, 0, &s.regrets[p])
            if s.ghead == s.gend:
                s.pend_belle = NONE
                _guest_line_empty(s)
                return
        elif e == E_POINTS:
            s.score2[p] += 2 * B_POINTS[b]
        elif e == E_NOBLE_PARTY:
            cnt = 0
            for g in range(NGROUPS):
                for i in range(s.gcount[p][g]):
                    if s.cards[p][g][i] < BELLE_CODE:
                        cnt += G_NOBLE[s.cards[p][g][i]]
            s.score2[p] += 2 * B_POINTS[b] * cnt
        _after_belle(s)

cdef void _deal(BellePos* s, Rng* rng) noexcept nogil:
    """A fresh game (RULES.md 4.2) with the position's player count and rule flags."""
    cdef int n = s.nplayers, pairs = s.pairs, fin = s.final_turn
    cdef int perm[MAXG]
    cdef int i, k = 0, p, g, per
    memset(s, 0, sizeof(BellePos))
    s.nplayers = n
    s.pairs = pairs
    s.final_turn = fin
    for i in range(NG):
        perm[i] = i
    rng_shuffle(rng, perm, NG)
    per = 4 if n == 2 else 3
    s.nregface = per * n
    for i in range(per * n):
        s.regface[i] = perm[k]
        k += 1
    for p in range(n):
        s.regrets[p] = per
        for g in range(NGROUPS):
            s.cards[p][g][0] = perm[k]
            s.gcount[p][g] = 1
            s.gguests[p][g] = 1
            k += 1
    i = 0
    while k < NG:
        s.gdeck[i] = perm[k]
        i += 1
        k += 1
    s.gend = i
    for i in range(NB):
        perm[i] = i
    rng_shuffle(rng, perm, NB)
    for i in range(NB):
        s.bdeck[i] = perm[i]
    s.bend = NB
    s.pend_belle = s.pend_guest = s.pend_group = NONE
    s.first_player = s.to_move = rng_below(rng, n)
    _start_turn(s)

cdef inline uint64_t _mix(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint32_t _group_mask(BellePos* s, int p, int g) noexcept nogil:
    """The interests of the guests in group g of p."""
    cdef uint32_t m = 0
    cdef int i, c
    for i in range(s.gcount[p][g]):
        c = s.cards[p][g][i]
        if c < BELLE_CODE:
            m |= G_MASK[c]
    return m

cdef inline int _match(BellePos* s, int p, int g, int guest) noexcept nogil:
    """How many of the guest's interests group g of p already shows, at most 3."""
    cdef int n = __builtin_popcount(G_MASK[guest] & _group_mask(s, p, g))
    return n if n < 3 else 3

cdef int _move_pattern(BellePos* s, int p, int a) noexcept nogil:
    """Move a's pattern for its mover p (the PAT_ constants): what a taken card brings, where a
    guest or a Belle goes, and whose guest a Mayhem Belle acts on."""
    cdef int k, g, q, i, x, best = 0, pts
    if a >= A_GUEST:
        x = a - A_GUEST
        for g in range(NGROUPS):
            for i in range(s.gcount[p][g]):
                if s.cards[p][g][i] == x:
                    return PAT_PICK
        return PAT_PICK + 1
    if a >= A_OPP:
        q, g = (a - A_OPP) // 3, (a - A_OPP) % 3
        pts = _group_points(s, q, g)
        pts = 0 if pts <= 0 else (1 if pts <= 3 else (2 if pts <= 6 else 3))
        return PAT_OPP + s.gcount[q][g] * 4 + pts
    if a >= A_GROUP:
        g = a - A_GROUP
        if s.phase == PH_MIRTH:
            return PAT_GROUP + (2 * 4 + s.gcount[p][g]) * 4
        return PAT_GROUP + ((s.phase == PH_DEST) * 4 + s.gcount[p][g]) * 4 + _match(s, p, g, s.pend_guest)
    if a >= A_TAKE_BELLE:
        k = a - A_TAKE_BELLE
        return PAT_TAKE_BELLE + (k * 3 + (s.breg[k] if s.breg[k] < 2 else 2)) * 3 + B_MODE[s.bdeck[s.bhead + k]]
    if a >= A_TAKE_GUEST:
        k = a - A_TAKE_GUEST
        x = s.gdeck[s.ghead + k]
        for g in range(NGROUPS):
            if not _is_full(s, p, g) and _match(s, p, g, x) > best:
                best = _match(s, p, g, x)
        return PAT_TAKE_GUEST + (k * 3 + (s.greg[k] if s.greg[k] < 2 else 2)) * 4 + best
    return PAT_PLAY + a      # A_PLAY + b, or A_PASS (= MAXB) for no Belle


cdef class BelleState(GameState):
    cdef BellePos s

    def __cinit__(self, *args, **kwargs):
        self._pos = &self.s
        self._pos_size = sizeof(BellePos)

    def __init__(self, dict params, seed=0):
        params = engine_params("belle_of_the_ball", params, MAXP)     # defaults, player counts and choices
        n = params["players"]
        self.game_id = "belle_of_the_ball"
        self.params = params
        self.num_players = n
        self.num_distinct_actions = N_ACTIONS
        memset(&self.s, 0, sizeof(BellePos))
        self.s.nplayers = n
        self.s.pairs = params["match_count"] == "pairs"
        self.s.final_turn = params["score_on_final_turn"]
        rng_seed(&self.chance, <uint64_t>seed)
        _deal(&self.s, &self.chance)

    cdef int c_reset(self, uint64_t seed) except -1 nogil:
        rng_seed(&self.chance, seed)
        _deal(&self.s, &self.chance)
        return 0

    cdef int c_apply(self, action_t a) except -1 nogil:
        _apply(&self.s, a)
        return 0

    cdef int c_legal_actions(self, action_t* out) noexcept nogil:
        if self.s.over:
            return 0
        return _legal(&self.s, out)

    cdef int c_current_player(self) noexcept nogil:
        return -1 if self.s.over else self.s.to_move

    cdef bint c_is_terminal(self) noexcept nogil:
        return self.s.over

    cdef double c_returns(self, int p) noexcept nogil:
        return self.s.score2[p] * 0.5

    cdef double c_score(self, int p) noexcept nogil:
        return self.s.score2[p] * 0.5

    cdef int c_round(self) noexcept nogil:
        return 0

    cdef int c_move_pattern_count(self) noexcept nogil:
        return MOVE_PATTERNS

    cdef void c_move_patterns(self, const action_t* acts, int k, int32_t* out) noexcept nogil:
        cdef int i, p = self.s.to_move
        for i in range(k):
            out[i] = _move_pattern(&self.s, p, acts[i])

    cdef double c_evaluate(self, int p) noexcept nogil:
        """p's prospect: the score so far; for each group, what it would score now plus, while open,
        1.75 per free place (about what a random guest adds to a group), as long as p can still
        fill it before the Guests run out (see _party: p is counted a Guest in every `nplayers`
        left, rounded up), else half a point per card; a guest waiting for p's group at its best
        place; 1 per Regret and 1.5 per Belle in hand or being played (each is half a point at the
        end, and buys a skip or an effect). Final: the returns."""
        cdef BellePos* s = &self.s
        cdef double v = s.score2[p] * 0.5, best, x
        cdef int g, belles
        cdef int takes = (s.gend - s.ghead + s.nplayers - 1) // s.nplayers
        if s.over:
            return v
        belles = __builtin_popcount(s.hand[p])
        best = -1e9
        if s.to_move == p:
            belles += s.pend_belle != NONE and s.phase != PH_PICK and s.phase != PH_DEST
            if s.pend_guest != NONE and (s.phase == PH_PLACE or s.phase == PH_DEST):
                for g in range(NGROUPS):
                    if not _is_full(s, p, g) and g != s.pend_group:
                        _group_add(s, p, g, s.pend_guest)
                        x = _party(s, p, takes)
                        _group_remove(s, p, g, s.gcount[p][g] - 1)
                        if x > best:
                            best = x
        if best == -1e9:
            best = _party(s, p, takes)
        return v + best + s.regrets[p] + 1.5 * belles

    cdef uint64_t c_infoset_key(self, int p) noexcept nogil:
        # Everything is public except the decks below their tops and the Regrets' faces.
        cdef BellePos t
        cdef uint64_t h = 0x6A09E667F3BCC909ULL
        cdef uint64_t* w
        cdef int i
        memcpy(&t, &self.s, sizeof(BellePos))
        for i in range(t.ghead + LINE, t.gend):
            t.gdeck[i] = 0
        for i in range(t.bhead + LINE, t.bend):
            t.bdeck[i] = 0
        memset(t.regface, 0, sizeof(t.regface))
        w = <uint64_t*>&t
        for i in range(sizeof(BellePos) // 8):
            h = _mix(h ^ w[i])
        return h

    cdef int c_determinize(self, int p, Rng* rng) except -1 nogil:
        # The unseen guests (deck below its top, and the Regrets) are one exchangeable pool, taken
        # in card order so that the result depends only on what the observer knows.
        cdef int pool[MAXG]
        cdef uint64_t gm = 0
        cdef uint32_t bm = 0
        cdef int i, n = 0, lo = self.s.ghead + LINE
        for i in range(lo, self.s.gend):
            gm |= 1ULL << self.s.gdeck[i]
        for i in range(self.s.nregface):
            gm |= 1ULL << self.s.regface[i]
        for i in range(NG):
            if (gm >> i) & 1:
                pool[n] = i
                n += 1
        rng_shuffle(rng, pool, n)
        n = 0
        for i in range(lo, self.s.gend):
            self.s.gdeck[i] = pool[n]
            n += 1
        for i in range(self.s.nregface):
            self.s.regface[i] = pool[n]
            n += 1
        n = 0
        lo = self.s.bhead + LINE
        for i in range(lo, self.s.bend):
            bm |= 1U << self.s.bdeck[i]
        for i in range(NB):
            if (bm >> i) & 1:
                pool[n] = i
                n += 1
        rng_shuffle(rng, pool, n)
        for i in range(lo, self.s.bend):
            self.s.bdeck[i] = pool[i - lo]
        rng_seed(&self.chance, rng_next(rng))
        return 0

    cdef int c_rollout(self, Rng* rng, int horizon) except -1 nogil:
        cdef action_t buf[128]
        cdef int n
        while not self.s.over:
            n = _legal(&self.s, buf)
            _apply(&self.s, buf[rng_below(rng, n)])
        return 0

    # ------------------------------------------------------------------ explicit setups
    @classmethod
    def from_setup(cls, parties, guests=(), belles=(), hands=None, regrets=None, guest_regrets=None,
                   belle_regrets=None, scores=None, full=(), to_move=0, seed=0, **params):
        """A position at the start of `to_move`'s turn, cards given by name.

        parties: per player, 3 groups, each a list of Guest and Belle names; `full`: (player, group)
        pairs made full by an effect. guests / belles: each line then its deck, in order (position 6
        is the deck top). hands: Belle names per player. regrets: counts per player (their faces are
        the first unused guests). guest_regrets / belle_regrets: Regrets beside line positions 1..6.
        scores: real points per player. Every card not named anywhere is discarded.
        """
        from engines.registry import resolve
        n = len(parties)
        full_params = resolve("belle_of_the_ball", players=n, **params)
        cdef BelleState st = cls(full_params, seed)
        cdef BellePos* s = &st.s
        used_g, used_b = set(), set()

        def card(name, ids, used, kind):
            if name not in ids:
                raise ValueError(f"unknown {kind} {name!r}")
            if name in used:
                raise ValueError(f"{kind} {name!r} appears twice")
            used.add(name)
            return ids[name]

        guest = lambda name: card(name, _GUEST_ID, used_g, "guest")
        belle = lambda name: card(name, _BELLE_ID, used_b, "Belle")

        st.seat(to_move)
        if any(not (0 <= p < n and 0 <= g < NGROUPS) for p, g in full):
            raise ValueError(f"full groups are (player 0..{n - 1}, group 0..{NGROUPS - 1}) pairs")
        if len(hands or []) > n or len(scores or []) > n or (regrets is not None and len(regrets) != n):
            raise ValueError(f"hands and scores give at most, regrets exactly, one entry per player ({n})")
        if len(guest_regrets or []) > LINE or len(belle_regrets or []) > LINE:
            raise ValueError(f"a line has {LINE} positions for Regrets")
        pairs, fin = s.pairs, s.final_turn
        memset(s, 0, sizeof(BellePos))
        s.nplayers, s.pairs, s.final_turn = n, pairs, fin
        for p, party in enumerate(parties):
            if len(party) != NGROUPS:
                raise ValueError("a party is 3 groups")
            for g, group in enumerate(party):
                if len(group) > GSIZE:
                    raise ValueError("a group holds at most 4 cards")
                for name in group:
                    if name not in _GUEST_ID and name not in _BELLE_ID:
                        raise ValueError(f"unknown card {name!r}")
                    _group_add(s, p, g, guest(name) if name in _GUEST_ID else BELLE_CODE + belle(name))
        for p, g in full:
            s.gfull[p][g] = 1
        for i, name in enumerate(guests):
            s.gdeck[i] = guest(name)
        s.gend = len(guests)
        for i, name in enumerate(belles):
            s.bdeck[i] = belle(name)
        s.bend = len(belles)
        for p, hand in enumerate(hands or []):
            for name in hand:
                s.hand[p] |= 1U << belle(name)
        regrets = list(regrets) if regrets is not None else [4 if n == 2 else 3] * n
        spare = [i for i in range(NG) if GUEST_NAMES[i] not in used_g]
        if sum(regrets) + sum(guest_regrets or []) + sum(belle_regrets or []) > min(len(spare), MAXR):
            raise ValueError("not enough unused guests to be the Regrets")
        for p, r in enumerate(regrets):
            s.regrets[p] = r
        for i, r in enumerate(guest_regrets or []):
            s.greg[i] = r
        for i, r in enumerate(belle_regrets or []):
            s.breg[i] = r
        s.nregface = sum(regrets) + sum(guest_regrets or []) + sum(belle_regrets or [])
        for i in range(s.nregface):
            s.regface[i] = spare[i]
        for i in spare[s.nregface:]:
            s.gdiscard |= 1ULL << i
        for b in range(NB):
            if BELLE_NAMES[b] not in used_b:
                s.bdiscard |= 1U << b
        for p, v in enumerate(scores or []):
            s.score2[p] = int(round(2 * v))
        s.pend_belle = s.pend_guest = s.pend_group = NONE
        s.first_player = s.to_move = to_move
        if s.gend == 0:
            raise ValueError("the guest line is empty: the game is over")
        _start_turn(s)
        return st

    # ------------------------------------------------------------------ the Python face
    def action_to_string(self, int action):
        if not 0 <= action < N_ACTIONS:
            raise ValueError(f"no action {action} in belle_of_the_ball")
        return ACTION_NAMES[action]

    def string_to_action(self, str text):
        try:
            return _ACTION_ID[" ".join(text.lower().split())]
        except KeyError:
            raise ValueError(f"unknown action {text!r} in belle_of_the_ball") from None

    @staticmethod
    def _card_name(int c):
        return GUEST_NAMES[c] if c < BELLE_CODE else BELLE_NAMES[c - BELLE_CODE]

    def party(self, p):
        """p's three groups, as lists of card names."""
        p = self.seat(p)
        return [[self._card_name(self.s.cards[p][g][i]) for i in range(self.s.gcount[p][g])]
                for g in range(NGROUPS)]

    def group_is_full(self, p, int g):
        return bool(_is_full(&self.s, self.seat(p), g))

    def group_points(self, p, int g):
        """What group g of p would score now (real points)."""
        return _group_points(&self.s, self.seat(p), g)

    def points_of(self, cards):
        """What a group holding `cards` (Guest and Belle names) scores under this game's rules
        (RULES.md 4.3 step 3), e.g. a group as it stood when it was scored; the position is not changed."""
        cdef BellePos t = self.s
        if len(cards) > GSIZE:
            raise ValueError("a group holds at most 4 cards")
        t.gcount[0][0] = t.gguests[0][0] = 0
        for name in cards:
            if name in _GUEST_ID:
                _group_add(&t, 0, 0, _GUEST_ID[name])
            elif name in _BELLE_ID:
                _group_add(&t, 0, 0, BELLE_CODE + _BELLE_ID[name])
            else:
                raise ValueError(f"unknown card {name!r}")
        return _group_points(&t, 0, 0)

    def hand(self, p):
        h = self.s.hand[self.seat(p)]
        return [BELLE_NAMES[b] for b in range(NB) if (h >> b) & 1]

    def regrets(self, p):
        return self.s.regrets[self.seat(p)]

    def guest_line(self):
        """The visible guest line: (name, Regrets beside it) for positions 1..6 (6 = deck top)."""
        return [(GUEST_NAMES[self.s.gdeck[self.s.ghead + k]], self.s.greg[k]) for k in range(_glen(&self.s))]

    def belle_line(self):
        return [(BELLE_NAMES[self.s.bdeck[self.s.bhead + k]], self.s.breg[k]) for k in range(_blen(&self.s))]

    def deck_sizes(self):
        """Cards below the deck tops: (guests, Belles)."""
        return (max(0, self.s.gend - self.s.ghead - LINE), max(0, self.s.bend - self.s.bhead - LINE))

    def doubled_scores(self):
        return [self.s.score2[p] for p in range(self.num_players)]

    def phase(self):
        return PHASE_NAMES[self.s.phase]

    def pending(self):
        """The Belle being played and the guest waiting for a group, by name (None if none)."""
        return (None if self.s.pend_belle == NONE else BELLE_NAMES[self.s.pend_belle],
                None if self.s.pend_guest == NONE else GUEST_NAMES[self.s.pend_guest])

    def discards(self):
        return ([GUEST_NAMES[i] for i in range(NG) if (self.s.gdiscard >> i) & 1],
                [BELLE_NAMES[b] for b in range(NB) if (self.s.bdiscard >> b) & 1])

    @staticmethod
    def position_size():
        return sizeof(BellePos)

    def hidden_cards(self):
        """What nobody sees, for tests: (guest deck below its top, the Regrets' faces, Belle deck below its top)."""
        return ([GUEST_NAMES[self.s.gdeck[i]] for i in range(self.s.ghead + LINE, self.s.gend)],
                [GUEST_NAMES[self.s.regface[i]] for i in range(self.s.nregface)],
                [BELLE_NAMES[self.s.bdeck[i]] for i in range(self.s.bhead + LINE, self.s.bend)])

    @cython.boundscheck(True)       # plain Python indexing here, negative indices included
    @cython.wraparound(True)
    def _events(self, GameState before, int action):
        """Belle of the Ball's events of `action`, played from `before` to here (GameState.apply_with_events)."""
        belles, guests = _BELLE_CARD, _GUEST_CARD
        p = before.current_player()
        name = before.action_to_string(action)
        phase = before.phase()
        belle, guest = before.pending()
        pre = before.party(p)            # the mover's groups as this action leaves them, before step 3
        out = []

        def seated(q, x, g):
            out.append(Event("guest_seated", q, x, f"group {g + 1}"))
            out.extend(Event("interest_seated", q, i, INTEREST_TIER[i]) for i in guests[x]["interests"])

        if name.startswith("play "):
            b = name[5:]
            out.append(Event("belle_played", p, b, belles[b]["mode"]))
        elif name.startswith("take guest ") or name.startswith("take Belle "):
            k = int(name.rsplit(" ", 1)[1])
            line = before.guest_line() if name.startswith("take guest ") else before.belle_line()
            kind = "guest_taken" if name.startswith("take guest ") else "belle_taken"
            out.append(Event(kind, p, line[k - 1][0], f"position {k}"))
        elif name.startswith("group "):
            g = int(name[6:]) - 1
            if phase == "choose your group for the Belle":
                out.append(Event("belle_target", p, belle, f"group {g + 1}"))
                pre[g].append(belle)
            else:
                seated(p, guest, g)
                pre[g].append(guest)
        elif name.startswith("player "):
            q, g = int(name.split()[1]), int(name.split()[3]) - 1
            out.append(Event("belle_target", q, belle, f"group {g + 1}"))
        elif name.startswith("guest "):
            x = name[6:]
            owner, g = next((q, g) for q in range(before.num_players)
                            for g, grp in enumerate(before.party(q)) if x in grp)
            out.append(Event("belle_target", owner, belle, f"guest {x}"))
            if owner == p:
                i = pre[g].index(x)
                if belles[belle]["effect"] == "switch_with_line":
                    pre[g][i] = before.guest_line()[0][0]
                else:
                    del pre[g][i]
        left = self.party(p)
        for g, cards in enumerate(pre):
            full = len(cards) == 4 or before.group_is_full(p, g) or (
                cards and cards[-1] == belle and belles[belle]["effect"] == "full")
            if cards and full and not left[g]:
                points = str(before.points_of(cards))
                out.append(Event("group_scored", p, f"group {g + 1}", points))
                out.extend(Event("belle_scored", p, c, points) for c in cards if c in belles)
        if ended(before, self):
            for q in range(self.num_players):
                out.extend(Event("belle_held_at_end", q, b, "hand") for b in self.hand(q))
                out.extend(Event("belle_held_at_end", q, c, f"group {g + 1}")
                           for g, grp in enumerate(self.party(q)) for c in grp if c in belles)
                out.append(Event("regrets_held_at_end", q, "Regret", str(self.regrets(q))))
        return out

    def observation(self, player):
        player = self.seat(player)
        belle, guest = self.pending()
        gd, bd = self.discards()
        return {
            "player": player,
            "to_move": self.c_current_player(),
            "phase": self.phase(),
            "scores": [self.s.score2[p] / 2.0 for p in range(self.num_players)],
            "regrets": [int(self.s.regrets[p]) for p in range(self.num_players)],
            "parties": [self.party(p) for p in range(self.num_players)],
            "full": [[self.group_is_full(p, g) for g in range(NGROUPS)] for p in range(self.num_players)],
            "hands": [self.hand(p) for p in range(self.num_players)],
            "guest_line": [list(x) for x in self.guest_line()],
            "belle_line": [list(x) for x in self.belle_line()],
            "deck_sizes": list(self.deck_sizes()),
            "pending_belle": belle,
            "pending_guest": guest,
            "discarded_guests": gd,
            "discarded_belles": bd,
            "legal": [self.action_to_string(a) for a in self.legal_actions()],
        }

    def __str__(self):
        out = []
        def card(name):
            if name in _GUEST_ID:
                g = GUESTS[_GUEST_ID[name]]
                return f"{name} ({'/'.join(g['interests'])})"
            return f"*{name}*"
        gl = self.guest_line()
        bl = self.belle_line()
        out.append("Guest line: " + ("; ".join(f"{k + 1}. {card(n)}" + (f" [{r} Regrets]" if r else "")
                                              for k, (n, r) in enumerate(gl)) or "empty")
                   + f" | {self.deck_sizes()[0]} below")
        out.append("Belle line: " + ("; ".join(f"{k + 1}. {n}" + (f" [{r} Regrets]" if r else "")
                                              for k, (n, r) in enumerate(bl)) or "empty")
                   + f" | {self.deck_sizes()[1]} below")
        for p in range(self.num_players):
            mark = ">" if p == self.c_current_player() else " "
            out.append(f"{mark} player {p}: {self.s.score2[p] / 2:g} points, {self.s.regrets[p]} Regrets, "
                       f"hand: {', '.join(self.hand(p)) or '-'}")
            for g, group in enumerate(self.party(p)):
                flag = " (full)" if self.group_is_full(p, g) else ""
                out.append(f"    group {g + 1}{flag}: " + ("; ".join(card(n) for n in group) or "-"))
        if self.s.over:
            out.append("game over: " + ", ".join(f"player {p} {self.s.score2[p] / 2:g}" for p in range(self.num_players)))
        else:
            belle, guest = self.pending()
            extra = (f" ({belle})" if belle else "") + (f" [{guest}]" if guest else "")
            out.append(f"player {self.s.to_move}: {self.phase()}{extra}")
        return "\n".join(out)
