"""The `arena` command line."""
import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tabletop-arena")
def main():
    """Tabletop Arena: fast game engines, search agents and rated bot tournaments."""
