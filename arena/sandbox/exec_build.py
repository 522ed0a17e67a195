"""An exec agent's build, in its box (the host's side, which starts it: arena.sandbox.exec_host.build_in_box):
`python -I -m arena.sandbox.exec_build SETTINGS` copies the bot's folder to /tmp, runs its build
command there and writes the folder back as a tar stream on stdout."""
import json
import os
import subprocess
import sys


def build(settings: dict) -> None:
    """In the build's box: copies the bot's folder to /tmp, runs the build there (its output on
    stderr), and writes the folder as a tar stream to stdout."""
    import shutil
    import tarfile

    from arena.sandbox.fork_server import apply_limits
    apply_limits(settings["limits"])
    name = settings["name"]
    work = os.path.join("/tmp", "build")
    folder = os.path.join(work, name)
    shutil.copytree(os.path.join(settings["root"], name), folder)
    for top, dirs, files in os.walk(folder):
        for entry in dirs + files:
            path = os.path.join(top, entry)
            os.chmod(path, os.stat(path).st_mode | 0o200)
    out = os.dup(1)
    os.dup2(2, 1)
    code = subprocess.call(settings["build"], cwd=folder, stdin=subprocess.DEVNULL)
    if code != 0:
        print(f"the build command exited with code {code}", file=sys.stderr)
        sys.exit(1)
    with os.fdopen(out, "wb") as stream, tarfile.open(fileobj=stream, mode="w|", format=tarfile.PAX_FORMAT) as tar:
        tar.add(folder, arcname=name)


if __name__ == "__main__":
    build(json.loads(sys.argv[1]))
