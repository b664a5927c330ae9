"""Generate Python code from the .proto files in this folder (run by the build, never by hand).

Each directory under proto/kingmaker that holds .proto files becomes a Python package of the
same dotted name (proto/kingmaker/v1 -> kingmaker.v1), and its generated modules
(*_pb2.py, *_pb2.pyi, *_pb2_grpc.py) are written beside the sources and git-ignored.
"""

from __future__ import annotations

from pathlib import Path


def proto_files(proto_root: Path) -> list[Path]:
    return sorted((proto_root / "kingmaker").rglob("*.proto"))


def proto_packages(proto_root: Path) -> dict[str, str]:
    """Map each generated package (and its parents) to its directory, relative to the repo."""
    repo = proto_root.parent
    packages: dict[str, str] = {}
    for source in proto_files(proto_root):
        directory = source.parent
        while directory != proto_root:
            name = ".".join(directory.relative_to(proto_root).parts)
            packages[name] = str(directory.relative_to(repo))
            directory = directory.parent
    # "kingmaker" itself is the namespace the layers live in, never a generated package.
    packages.pop("kingmaker", None)
    return packages


def generate(proto_root: Path, out_dir: Path | None = None) -> list[Path]:
    """Run protoc over every .proto; return the generated files. Raises on a protoc error."""
    import grpc_tools
    from grpc_tools import protoc

    out = out_dir or proto_root
    include = Path(grpc_tools.__file__).parent / "_proto"
    sources = [str(p.relative_to(proto_root)) for p in proto_files(proto_root)]
    args = [
        "grpc_tools.protoc",
        f"-I{proto_root}",
        f"-I{include}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        *sources,
    ]
    if protoc.main(args) != 0:
        raise RuntimeError(f"protoc failed on {proto_root}")
    generated: list[Path] = []
    for package in proto_packages(proto_root):
        init = out.joinpath(*package.split("."), "__init__.py")
        init.touch()
        generated.append(init)
    for source in sources:
        directory = out / Path(source).parent
        generated.extend(sorted(directory.glob(Path(source).stem + "_pb2*")))
    return generated


if __name__ == "__main__":
    # For development: regenerate in place after editing a .proto (the build does this too).
    for path in generate(Path(__file__).parent):
        print(path)
