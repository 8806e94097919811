#!/usr/bin/env bash
# The package test (run by tools/run-tests.sh after the suite, so by CI): builds the Debian
# package from the build folder, checks it (lintian: errors fail, warnings are printed and listed
# in packaging/README.md; appstreamcli; desktop-file-validate), installs it with apt-get, runs the
# installed programs from an empty folder on an installed model (not the source tree), starts the
# installed GUI headless until its window is shown, removes the package and checks that every file
# it installed is gone.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=$(cd "${BUILD_DIR:-build}" && pwd)
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

step() { echo "package-test: $*"; }
fail() { echo "package-test: FAILED: $*" >&2; exit 1; }

version=$(sed -n 's/^project(GraphOptStudio VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[[ -n $version ]] || fail "no project version in CMakeLists.txt"
if dpkg-query -W -f='${Status}' graphopt-studio 2>/dev/null | grep -q "install ok installed"; then
  step "removing a graphopt-studio package left installed"
  $SUDO apt-get remove -y -q graphopt-studio >/dev/null
fi

step "building the package (cpack)"
rm -f "$BUILD_DIR"/graphopt-studio_*.deb
(cd "$BUILD_DIR" && cpack -G DEB >/dev/null) || fail "cpack"
deb=$(ls "$BUILD_DIR"/graphopt-studio_"$version"_*.deb 2>/dev/null | head -1)
[[ -f $deb ]] || fail "no graphopt-studio_${version}_*.deb in $BUILD_DIR"
step "$(basename "$deb"): $(du -h "$deb" | cut -f1)"
dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/^ */  depends: /'

step "lintian"
lintian --fail-on error --no-tag-display-limit "$deb" || fail "lintian reports errors (above)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
step "installing with apt-get"
cp "$deb" "$tmp/"
$SUDO apt-get install -y -q "$tmp/$(basename "$deb")" >/dev/null || fail "apt-get install"
mapfile -t files < <(dpkg -L graphopt-studio)

step "checking the installed files"
appstreamcli validate --no-net /usr/share/metainfo/io.github.graphopt.Studio.metainfo.xml || fail "appstreamcli"
desktop-file-validate /usr/share/applications/io.github.graphopt.Studio.desktop || fail "desktop-file-validate"
for size in 16 24 32 48 64 128 256; do
  [[ -s /usr/share/icons/hicolor/${size}x${size}/apps/graphopt-studio.png ]] || fail "no ${size}px icon"
done
[[ -s /usr/share/icons/hicolor/scalable/apps/graphopt-studio.svg ]] || fail "no SVG icon"
[[ -s /usr/share/man/man1/graphopt.1.gz && -s /usr/share/man/man1/graphopt-studio.1.gz ]] || fail "man pages missing"
[[ -x /usr/libexec/graphopt-studio/graphopt-measure-worker ]] || fail "no measure worker"
[[ -x /usr/libexec/graphopt-studio/graphopt-nn ]] || fail "no graphopt-nn (graphopt hands it the LibTorch commands)"
[[ -s /usr/share/doc/graphopt-studio/copyright ]] || fail "no copyright file"

step "running the installed programs from an empty folder"
cd "$tmp"
export HOME=$tmp XDG_DATA_HOME=$tmp/data QT_QPA_PLATFORM=offscreen
model=/usr/share/graphopt-studio/resources/models/resnet18.onnx
[[ $(/usr/bin/graphopt --version) == "graphopt $version" ]] || fail "graphopt --version: $(/usr/bin/graphopt --version)"
[[ $(/usr/bin/graphopt-studio --version) == "graphopt-studio $version" ]] || fail "graphopt-studio --version: $(/usr/bin/graphopt-studio --version)"
out=$(/usr/bin/graphopt info "$model") || fail "graphopt info"
echo "$out" | sed -n 1,2p
out=$(/usr/bin/graphopt place "$model" --engine regal --budget 400) || fail "graphopt place --engine regal"
echo "$out" | tail -1
[[ -s $XDG_DATA_HOME/graphopt-studio/runs.db ]] || fail "the place run was not stored"
out=$(/usr/bin/graphopt runs list --limit 1) || fail "graphopt runs list"
# A real kernel measurement through the installed measure worker (the smallest depthwise task).
out=$(/usr/bin/graphopt tune /usr/share/graphopt-studio/resources/models/mobilenet_v2.onnx --task 23 --trials 2 --quiet) \
  || fail "graphopt tune with the installed measure worker"
echo "$out" | sed -n 1p
[[ $out == *"2 measured, 0 failed"* ]] || fail "graphopt tune: the installed measure worker did not measure"
# Bash completion, generated from the command descriptions: "graphopt pl<TAB>" and the choices of --engine.
bash -c 'source /usr/share/bash-completion/completions/graphopt
         COMP_WORDS=(graphopt pl); COMP_CWORD=1; _graphopt; [[ " ${COMPREPLY[*]} " == *" place "* ]] || exit 1
         COMP_WORDS=(graphopt place m.onnx --engine re); COMP_CWORD=4; _graphopt; [[ " ${COMPREPLY[*]} " == *" regal "* ]] || exit 1' \
  || fail "bash completion"
# The GUI until its window is shown (it grabs the window after the graph's layout, then quits).
timeout 120 /usr/bin/graphopt-studio "$model" --screenshot "$tmp/window.png" >/dev/null 2>&1 || fail "graphopt-studio did not show its window"
[[ -s $tmp/window.png ]] || fail "graphopt-studio wrote no screenshot"
cd "$ROOT"

step "removing the package"
$SUDO apt-get remove -y -q graphopt-studio >/dev/null || fail "apt-get remove"
left=0
for f in "${files[@]}"; do
  if [[ -f $f || -L $f ]]; then echo "left behind: $f" >&2; left=1; fi
done
[[ -d /usr/share/graphopt-studio || -d /usr/libexec/graphopt-studio ]] && { echo "left behind: a graphopt-studio folder" >&2; left=1; }
((left == 0)) || fail "files left after removal"
step "passed"
