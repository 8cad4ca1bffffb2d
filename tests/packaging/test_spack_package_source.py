"""The Spack package's source where no Spack runs (CI cannot fetch one:
tests/packaging/test_spack.py skips there): packaging/spack/packages/iolens/package.py
compiles, declares the variants docs/install.md lists, and every CMake option its
cmake_args set is an option() of this project's CMake files, so a renamed option
cannot leave the package setting one nobody reads."""
import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "packaging" / "spack" / "packages" / "iolens" / "package.py"
VARIANTS = {"mpi", "hdf5", "pnetcdf", "lustre", "python", "bzip2", "libdeflate"}


def calls(tree, name):
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and getattr(n.func, "id", getattr(n.func, "attr", None)) == name]


def test_package_compiles_with_its_variants_and_options():
    source = PACKAGE.read_text()
    tree = ast.parse(source, str(PACKAGE))
    compile(tree, str(PACKAGE), "exec")
    [cls] = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert cls.name == "Iolens" and [b.id for b in cls.bases] == ["CMakePackage"]
    variants = {c.args[0].value for c in calls(tree, "variant")}
    assert variants == VARIANTS
    defined = {c.args[0].value for c in calls(tree, "define_from_variant")} | \
              {c.args[0].value for c in calls(tree, "define")}
    cmake_files = [REPO / "CMakeLists.txt", *(REPO / "src").rglob("CMakeLists.txt"),
                   *(REPO / "cmake").glob("*.cmake")]
    options = {o for f in cmake_files
               for o in re.findall(r"^\s*option\((\w+)", f.read_text(), re.M)}
    project_defines = {d for d in defined if d.startswith("IOLENS_")}
    assert project_defines and project_defines <= options, project_defines - options
    # each variant but python turns on its own option
    assert {c.args[1].value for c in calls(tree, "define_from_variant")} >= VARIANTS - {"python"}
