"""`arena train` (a model from a teacher's play) and `arena models` (the models there are): click only,
the work is in arena.learn (docs/training.md)."""
import os
import shlex

import click

import engines
from arena.cli.common import ArenaError, WholeNumber, out_option, replacing, store_option, user_errors


def models_folder(store_path: str) -> str:
    """Where `arena train` writes by default and `arena models` looks: `models/` beside the store."""
    return os.path.join(os.path.dirname(os.path.abspath(store_path)), "models")


@click.command(short_help="Train a model from a teacher's play (Wizard's bidder, a leaf value, a playout policy).")
@click.option("--game", "game_id", default="wizard", show_default=True,
              help="The game (any with --target value; Wizard with --target bid; one whose engine has move "
                   "patterns, Royal Ball or Belle of the Ball, with --target playout).")
@click.option("--target", type=click.Choice(["bid", "value", "playout"]), default="bid", show_default=True,
              help="bid: Wizard's bidder; value: a leaf value for ismcts[value=FILE] (the final score share "
                   "of each seat from the position's features); playout: a playout policy for "
                   "ismcts[playout=FILE] (a weight per move pattern, from the teacher's moves).")
@click.option("--players", type=int, default=None, help="Players per game (default: the game's).")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="Game parameter.")
@click.option("--teacher", default=None,
              help="The agent whose play is learned from: built in (pimc[bid_samples=100]) or submitted "
                   "(./bot.py:MyBot, sandboxed), in every seat [default: pimc for bid, ismcts for value].")
@click.option("--games", type=WholeNumber(min=10), default=200, show_default=True,
              help="Whole games the teacher plays, rounded up to an even number (a fifth of them, by "
                   "deal, held out for validation).")
@click.option("--seed", type=WholeNumber(min=0), default=0, show_default=True, help="The deals' and the fit's seed.")
@click.option("--fit", "fit_kind", type=click.Choice(["trees", "network"]), default="trees", show_default=True,
              help="Gradient-boosted trees (evaluated in C) or a network (--hidden; bid only).")
@click.option("--stages", type=WholeNumber(min=1, max=1000), default=60, show_default=True,
              help="Boosting stages of --fit trees.")
@click.option("--hidden", default=None,
              help="Hidden layer sizes of --fit network, comma-separated (0: logistic regression) [default: 32].")
@click.option("--given-bid", is_flag=True,
              help="Also learn the tricks given the bid, and let it move the bid by one (docs/training.md).")
@click.option("-j", "--jobs", type=WholeNumber(min=1), default=None, help="Worker processes [default: one per core].")
@click.option("--sandbox", type=click.Choice(["bwrap", "none"]), default="bwrap", show_default=True,
              help="How a submitted teacher is confined.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@out_option("The model file [default: models/GAME-DIGEST.json beside the store].")
@store_option
@user_errors
def train(game_id: str, target: str, players: int | None, params: tuple[str, ...], teacher: str | None, games: int,
          seed: int,
          fit_kind: str, stages: int, hidden: str | None, given_bid: bool, jobs: int | None, sandbox: str, quiet: bool, out: str | None, store_path: str) -> None:
    """Train Wizard's learned bidder (--target bid), a game's leaf value for ismcts (--target value:
    every position of the teacher's games, each seat's features and final score share, regression
    trees) or its playout policy (--target playout: every move of the teacher's games among its
    legal ones, a logit per move pattern; docs/training.md). The teacher plays --games whole games
    in every seat, on worker processes; at each bid the bidder's view and the tricks its hand then
    took are kept, in chunks beside the store (training/DIGEST/, DIGEST of the game, parameters,
    teacher and seed; an interrupted run resumes there). A scikit-learn classifier learns the
    tricks a hand takes, is validated on held-out deals and written as a model file that
    `pimc[bidding=learned,bid_model=FILE]` and `ismcts[bidding=learned,bid_model=FILE]` play with."""
    import time

    import numpy as np

    from agents import learned
    from arena import edge
    from arena.cli.run import progress_bar
    from arena.learn import data, fit
    from arena.sandbox import stage, validate_all
    if target != "playout":   # a playout policy is fitted by scipy, which every install has
        fit.check_installed()
    if target == "bid" and game_id != learned.BID_GAME:
        raise ValueError(f"--target bid learns Wizard's bidder only, not {game_id!r} (--target value: any game)")
    if target != "bid" and (fit_kind != "trees" or given_bid):
        raise ValueError(f"--target {target} takes no --fit network or --given-bid: they are for bids")
    teacher = teacher or ("pimc" if target == "bid" else "ismcts")
    if hidden is not None and fit_kind != "network":
        raise ValueError("--hidden shapes a network: give it with --fit network")
    hidden = hidden or "32"
    try:
        layers = tuple(int(h) for h in hidden.split(",") if h.strip() and int(h) > 0)
    except ValueError:
        raise ValueError(f"--hidden must be sizes like 32 or 64,32 (0: none), not {hidden!r}") from None
    game = edge.game(game_id, players, params, command="train")
    game_id, full = game.game_id, dict(game.params)
    if target == "playout" and not engines.make(game_id, **full).move_pattern_count():
        raise ValueError(f"--target playout needs an engine that describes its moves by patterns; {game_id}'s "
                         f"does not (royal_ball's does)")
    policy = edge.sandbox_policy(sandbox)
    spec = stage(edge.agent(teacher, policy))
    validate_all([spec], policy)
    config = data.DataConfig(game_id, tuple(sorted(full.items())), spec, seed, policy, target)
    folder = data.prepare(store_path, config)
    todo = data.missing_chunks(folder, config, games)
    total = data.chunks_for(games) * data.CHUNK_GAMES
    started = time.monotonic()
    click.echo(f"training data: {folder} ({total - len(todo) * data.CHUNK_GAMES} of {total} games there)", err=True)
    if todo:
        with progress_bar(total, total - len(todo) * data.CHUNK_GAMES, quiet) as meter:
            def played_chunk(games: int) -> None:
                for _ in range(games):
                    meter.advance()
            data.generate(folder, config, todo, jobs, played_chunk)
    played = time.monotonic() - started
    if target == "value":
        _write_value(config, folder, games, total, seed, stages, params, out, store_path, played, started)
        return
    if target == "playout":
        _write_playout(config, folder, games, total, seed, params, out, store_path, played, started)
        return
    train_rows: list[dict] = []
    held_rows: list[dict] = []
    for k, row in data.load_rows(folder, config, games):
        (held_rows if data.is_validation(k) else train_rows).append(row)
    x, y, bids = fit.bid_table(train_rows)

    def fitted(rows: np.ndarray) -> dict:
        return fit.fit_trees(rows, y, seed, stages) if fit_kind == "trees" else fit.fit(rows, y, seed, layers)
    net = fitted(x)
    given = fitted(np.column_stack([x, bids])) if given_bid else None
    validation = fit.validate(net, held_rows, given)
    command = " ".join(["arena train --game", game_id, "--players", str(full["players"])]
                       + [f"--param {shlex.quote(p)}" for p in params]
                       + ["--teacher", shlex.quote(teacher), "--games", str(total), "--seed", str(seed),
                          "--fit", fit_kind]
                       + (["--stages", str(stages)] if fit_kind == "trees" else ["--hidden", ",".join(map(str, layers)) or "0"])
                       + (["--given-bid"] if given_bid else []))
    text = fit.model_file(net, game_id=game_id, params=full, teacher=spec.label,
                          data={"config": config.digest, "games": total, "train_rows": len(train_rows)},
                          validation=validation, seed=seed,
                          shape={"stages": stages, "depth": fit.TREE_DEPTH} if fit_kind == "trees" else {"hidden": list(layers)},
                          command=command,
                          given_bid=given)
    out = _write_model(out, store_path, f"{game_id}-{config.digest}.json", text)
    click.echo(f"model {out}: {len(train_rows)} rows from {total} games of {spec.label} "
               f"(played in {played:.0f}s, fitted in {time.monotonic() - started - played:.0f}s); held out "
               f"{validation['rows']} rows: bid met {validation.get('model_bid_met', 0):.3f} (teacher "
               f"{validation.get('teacher_bid_met', 0):.3f}), log loss {validation.get('log_loss', 0):.3f}")


def _whole_games(config, folder: str, games: int) -> tuple[list[dict], list[dict]]:
    """(the games trained on, those held out) of whole-games data."""
    from arena.learn import data
    train_games: list[dict] = []
    held_games: list[dict] = []
    for k, row in data.load_rows(folder, config, games):
        (held_games if data.is_validation(k) else train_games).append(row)
    return train_games, held_games


def _write_playout(config, folder: str, games: int, total: int, seed: int, params: tuple[str, ...],
                   out: str | None, store_path: str, played: float, started: float) -> None:
    """--target playout: a logit per move pattern fitted to the games' moves, validated on the held-out ones."""
    import time

    from arena.learn import fit
    full = dict(config.params)
    train_games, held_games = _whole_games(config, folder, games)
    patterns, chosen = fit.move_table(config.game_id, full, train_games)
    logits = fit.fit_move_policy(patterns, chosen, engines.make(config.game_id, **full).move_pattern_count())
    validation = fit.validate_move_policy(logits, *fit.move_table(config.game_id, full, held_games))
    command = " ".join(["arena train --target playout --game", config.game_id, "--players", str(full["players"])]
                       + [f"--param {shlex.quote(p)}" for p in params]
                       + ["--teacher", shlex.quote(config.teacher.label), "--games", str(total), "--seed", str(seed)])
    text = fit.model_file({"kind": "logits", "logits": logits}, game_id=config.game_id, params=full,
                          teacher=config.teacher.label,
                          data={"config": config.digest, "games": total, "train_rows": len(chosen)},
                          validation=validation, seed=seed, shape={}, command=command, target="playout")
    out = _write_model(out, store_path, f"playout-{config.game_id}-{config.digest}.json", text)
    click.echo(f"model {out}: {len(chosen)} moves from {total} games of {config.teacher.label} (played in "
               f"{played:.0f}s, fitted in {time.monotonic() - started - played:.0f}s); held out "
               f"{validation['moves']} moves: log loss {validation.get('log_loss', 0):.3f} (uniform "
               f"{validation.get('log_loss_uniform', 0):.3f}), the teacher's move likeliest "
               f"{validation.get('top_move', 0):.3f}")


def _write_value(config, folder: str, games: int, total: int, seed: int, stages: int, params: tuple[str, ...],
                 out: str | None, store_path: str, played: float, started: float) -> None:
    """--target value: the leaf value fitted to the games' positions, validated on the held-out ones."""
    import time

    from arena.learn import fit
    full = dict(config.params)
    train_games, held_games = _whole_games(config, folder, games)
    x, y = fit.value_table(config.game_id, full, train_games)
    hx, hy = fit.value_table(config.game_id, full, held_games)
    trees = fit.fit_value_trees(x, y, seed, stages)
    validation = fit.validate_value(trees, hx, hy)
    command = " ".join(["arena train --target value --game", config.game_id, "--players", str(full["players"])]
                       + [f"--param {shlex.quote(p)}" for p in params]
                       + ["--teacher", shlex.quote(config.teacher.label), "--games", str(total),
                          "--seed", str(seed), "--stages", str(stages)])
    text = fit.model_file(trees, game_id=config.game_id, params=full, teacher=config.teacher.label,
                          data={"config": config.digest, "games": total, "train_rows": len(y)},
                          validation=validation, seed=seed, shape={"stages": stages, "depth": fit.TREE_DEPTH},
                          command=command, target="value")
    out = _write_model(out, store_path, f"value-{config.game_id}-{config.digest}.json", text)
    click.echo(f"model {out}: {len(y)} rows from {total} games of "
               f"{config.teacher.label} (played in {played:.0f}s, fitted in "
               f"{time.monotonic() - started - played:.0f}s); held out {validation['rows']} rows: mean squared "
               f"error {validation.get('mse', 0):.4f} (a constant {validation.get('mse_constant', 0):.4f})")


def _write_model(out: str | None, store_path: str, name: str, text: str) -> str:
    """Writes the model file to `out`, or models/NAME beside the store; returns where."""
    if out is None:
        os.makedirs(models_folder(store_path), exist_ok=True)
        out = os.path.join(models_folder(store_path), name)
    with replacing(out) as f:   # a tournament's workers may be reading the model this replaces
        f.write(text)
    return out


@click.command(short_help="List models: the shipped ones and those beside the store.")
@click.argument("paths", nargs=-1, metavar="[FILE...]")
@store_option
@user_errors
def models(paths: tuple[str, ...], store_path: str) -> None:
    """List model files with their game, teacher, data and validation: each FILE given, or else the
    shipped models and those in models/ beside the store. A file that cannot be used is listed with
    the reason; a FILE given that does not exist or is not a model is an error (exit 2)."""
    from agents import learned
    from arena.text import printable
    from engines.registry import resolve
    given = bool(paths)
    files = list(paths) or (learned.model_files(os.path.dirname(learned.shipped_path()))
                            + learned.model_files(models_folder(store_path)))
    for path in files:
        try:
            body = learned.load(path)
        except learned.BadModel as e:
            if given:
                raise ArenaError(printable(str(e))) from None
            click.echo(f"{printable(path)}: refused: {printable(str(e))}")
            continue
        v = body.get("validation") or {}
        players = body["params"].get("players")
        try:
            defaults = learned.as_json(resolve(body["game"], players=players))
        except ValueError:   # a game or player count this arena does not have
            defaults = {}
        params = ",".join(f"{k}={x}" for k, x in sorted(body["params"].items()) if x != defaults.get(k))
        unit = "moves" if body["features"]["name"] == learned.MOVE_PATTERNS else "rows"   # a policy learns from moves
        click.echo(f"{printable(path)}: {body['game']} {players} players"
                   f"{' ' + params if params else ''}; teacher {printable(str(body.get('teacher')))}; "
                   f"{body['data'].get('games')} games, {body['data'].get('train_rows')} {unit}; held out "
                   f"{v.get(unit)} {unit}, "
                   + _held_out(body["features"]["name"], v)
                   + f"{body.get('kind')}; "
                   f"seed {body.get('seed')}; digest {body['digest'][:12]}")


def _held_out(features: str, v: dict) -> str:
    """A model's held-out figures, as `arena models` lists them."""
    from agents import learned
    if features == learned.LEAF_FEATURES:
        return f"mean squared error {v.get('mse')} (a constant {v.get('mse_constant')}); "
    if features == learned.MOVE_PATTERNS:
        return f"log loss {v.get('log_loss')} (uniform {v.get('log_loss_uniform')}); "
    return f"bid met {v.get('model_bid_met')} (teacher {v.get('teacher_bid_met')}); "
