"""Entrant tokens (arena.ladder.tokens): only a live token of the ladder names its entrant."""
import pytest

from arena.ladder import tokens
from arena.ladder.tokens import TokenRefused
from arena.store import Store


@pytest.fixture
def store(tmp_path):
    store = Store(str(tmp_path / "tokens.sqlite"))
    yield store
    store.close()


def test_a_token_names_its_entrant_and_only_its_hash_is_kept(store):
    token = tokens.issue(store, "club", "alice")
    assert tokens.entrant_of(store, "club", token) == "alice"
    token_id, secret = token.split(".")
    row = tuple(store.db.execute("SELECT * FROM ladder_tokens").fetchone())
    assert token_id in row and not any(secret in str(cell) or secret.encode() == cell for cell in row)


@pytest.mark.parametrize("sent", [None, "", "nodot", ".", "0000000000000000.secret"])
def test_no_token_or_an_unknown_one_is_refused(store, sent):
    tokens.issue(store, "club", "alice")
    with pytest.raises(TokenRefused):
        tokens.entrant_of(store, "club", sent)


def test_a_wrong_secret_is_refused(store):
    token_id, secret = tokens.issue(store, "club", "alice").split(".")
    with pytest.raises(TokenRefused):
        tokens.entrant_of(store, "club", f"{token_id}.{secret[:-1]}{'A' if secret[-1] != 'A' else 'B'}")


def test_a_token_of_another_entrant_names_that_entrant_and_of_another_ladder_nothing(store):
    alice, bob = tokens.issue(store, "club", "alice"), tokens.issue(store, "club", "bob")
    assert tokens.entrant_of(store, "club", bob) == "bob"
    # another entrant's token with this entrant's id prefix: the id selects bob's row, alice's secret fails
    with pytest.raises(TokenRefused):
        tokens.entrant_of(store, "club", f"{bob.split('.')[0]}.{alice.split('.')[1]}")
    with pytest.raises(TokenRefused):
        tokens.entrant_of(store, "other", alice)


def test_an_expired_token_is_refused(store):
    token = tokens.issue(store, "club", "alice", days=1, now=1000.0)
    assert tokens.entrant_of(store, "club", token, now=1000.0 + 86399) == "alice"
    with pytest.raises(TokenRefused):
        tokens.entrant_of(store, "club", token, now=1000.0 + 86400)


@pytest.mark.parametrize("days", [0, -1, tokens.MAX_DAYS + 1])
def test_an_expiry_out_of_range_is_a_user_error(store, days):
    with pytest.raises(ValueError, match="--expires"):
        tokens.issue(store, "club", "alice", days=days)


def test_a_revoked_token_is_refused_and_others_stay(store):
    first, second = tokens.issue(store, "club", "alice"), tokens.issue(store, "club", "alice")
    bob = tokens.issue(store, "club", "bob")
    assert tokens.revoke(store, "club", "alice") == 2
    for token in (first, second):
        with pytest.raises(TokenRefused):
            tokens.entrant_of(store, "club", token)
    assert tokens.entrant_of(store, "club", bob) == "bob"
    fresh = tokens.issue(store, "club", "alice")
    assert tokens.entrant_of(store, "club", fresh) == "alice"
    assert [t["revoked"] is not None for t in tokens.tokens(store, "club")] == [True, True, False, False]


def test_a_store_without_tokens_refuses_every_token(store):
    with pytest.raises(TokenRefused):
        tokens.entrant_of(store, "club", "0123456789abcdef.secret")
    assert tokens.tokens(store, "club") == []


def test_the_commands_issue_list_and_revoke_tokens(tmp_path):
    from arena.store import Store
    from cli import invoke, ok
    store_path = str(tmp_path / "arena.sqlite")
    ok("ladder", "new", "club", "--game", "insert", "--store", store_path)
    result = invoke("ladder", "token", "club", "alice", "--expires", "7", "--store", store_path)
    assert result.exit_code == 0 and "shown once" in result.stderr
    token = result.stdout.strip()
    store = Store(store_path, readonly=True)
    try:
        assert tokens.entrant_of(store, "club", token) == "alice"
    finally:
        store.close()
    listing = ok("ladder", "tokens", "club", "--store", store_path)
    assert token.split(".")[0] in listing and token.split(".")[1] not in listing and "expires" in listing
    assert "revoked 1 token of alice" in ok("ladder", "revoke", "club", "alice", "--store", store_path)
    assert "revoked" in ok("ladder", "tokens", "club", "--store", store_path)
    for args in (["token", "nosuch", "alice"], ["token", "club", "<b>x</b>"],
                 ["token", "club", "alice", "--expires", "0"], ["revoke", "nosuch", "alice"]):
        result = invoke("ladder", *args, "--store", store_path)
        assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, (args, result.output)


@pytest.mark.parametrize("sent", [None, "nodot", "0000000000000000.secret", "wrong-secret", "valid"])
def test_every_answer_costs_one_hash_whatever_was_sent(store, monkeypatch, sent):
    """No timing oracle by construction: an unknown or malformed token is hashed (against a dummy
    row) as a known one is, so a refusal does the same work as an acceptance."""
    token = tokens.issue(store, "club", "alice")
    sent = {"wrong-secret": token.split(".")[0] + ".x" * 20, "valid": token}.get(sent, sent)
    hashed = []
    real = tokens._hash
    monkeypatch.setattr(tokens, "_hash", lambda secret, salt: hashed.append(salt) or real(secret, salt))
    try:
        tokens.entrant_of(store, "club", sent)
    except TokenRefused:
        pass
    assert len(hashed) == 1
