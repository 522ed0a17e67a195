"""`arena deals make`: a deal book, the deals of a game in a file that `--deals BOOK` plays on any
machine and store (arena.tournament.books, docs/deals.md)."""

import click

from arena.cli.common import ArenaError, WholeNumber, out_option, user_errors, writing


@click.group("deals", short_help="Deal books: the same deals for everyone (arena deals make).")
def deals() -> None:
    """Deal books: files of deals that `arena run --deals BOOK` and `arena compare --deals BOOK`
    play, so that runs in different stores and on different machines play exactly the same deals
    and compare deal by deal. A book reveals every deal it holds: keep it from the bots' authors
    until its deals are played (docs/deals.md)."""


@deals.command(short_help="Write a deal book of GAME.")
@click.argument("game_id", metavar="GAME")
@click.option("--count", type=WholeNumber(min=1), required=True, help="Deals in the book.")
@click.option("--players", type=int, default=None, help="Players per match (default: the game's).")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="Game parameter.")
@click.option("--name", default=None, help="The book's name, shown by runs and reports [default: the file's].")
@click.option("--phrase", required=True, metavar="TEXT",
              help="The public text the book's key derives from (with its name, game, parameters and size); "
                   "fix it before the bots are known, e.g. a public draw's result.")
@out_option("The book's file (JSON).", required=True)
@click.option("--deal-key", default=None, hidden=True)   # refused: a book's key is never chosen
@user_errors
def make(game_id: str, count: int, players: int | None, params: tuple[str, ...], name: str | None,
         phrase: str, out: str, deal_key: str | None) -> None:
    """Write COUNT deals of GAME (with --players and --param) to --out: their seeds under the key
    derived from --phrase, the book's name, game, parameters and size (so its maker cannot choose
    the key without showing another phrase), with what each seed deals. Prints the book's name,
    digest and phrase, which runs of it show. Whoever knows the phrase can deal every deal."""
    from arena import edge
    from arena.text import book_text
    from arena.tournament import books
    if deal_key is not None:
        raise ArenaError("a deal book's key is derived from its --phrase, never chosen (docs/deals.md)")
    game = edge.game(game_id, players, params, command="deals make")
    game_id = game.game_id
    book = books.make(game_id, game.params, count, books.default_name(out) if name is None else name, phrase)
    with writing(out):
        books.save(book, out)
    click.echo(f"deal book {book_text(book.ref())}: {count} deals of {game_id}, written to {out}; its key is "
               f"the {books.DERIVATION}")
