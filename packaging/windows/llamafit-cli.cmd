@echo off
rem llamafit-cli on the PATH: this folder holds only this file, so putting it on the PATH
rem exposes no Qt or MinGW DLL to other programs' DLL search. It runs the llamafit-cli.exe
rem installed one folder up, with every argument as given.
"%~dp0..\llamafit-cli.exe" %*
exit /b %ERRORLEVEL%
