#!/usr/bin/env bash
# Refreshes resources/translations/*.ts from the tr() strings in ui/ and app/gui/ (Qt's
# lupdate; obsolete entries are dropped). Translate new entries with Qt Linguist or by hand;
# the build compiles the .ts files with lrelease.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian puts Qt 6 tools in /usr/lib/qt6/bin; a bare `lupdate` on PATH may be qtchooser for Qt 5.
lupdate=/usr/lib/qt6/bin/lupdate
[[ -x $lupdate ]] || lupdate=$(command -v lupdate6 || command -v lupdate)
# -I .: includes are rooted at the repo; without it lupdate cannot see `namespace llamafit` and
# writes contexts as "MainWindow" instead of "llamafit::MainWindow", which tr() never finds.
"$lupdate" -no-obsolete -locations none -target-language ja_JP -I . ui app/gui -ts resources/translations/llamafit_ja.ts
