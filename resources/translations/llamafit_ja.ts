<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ja_JP">
<context>
    <name>AboutDialog</name>
    <message>
        <source>About LlamaFit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LlamaFit %1
Qt %2 (built with %3)
QCustomPlot %4
llama-server: %5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not probed yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;h2&gt;LlamaFit&lt;/h2&gt;&lt;p&gt;Plan and launch llama.cpp&apos;s llama-server: see how much memory it will take before it starts, then watch it run.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every sizing rule follows llama.cpp&apos;s own source (src/llama-kv-cache.cpp, src/llama-memory-recurrent.cpp, src/llama-model.cpp, ...) and is checked against what the real llama-server allocates.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>AdvicePanel</name>
    <message>
        <source>Largest context that fits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sets -c to the largest context that fits this machine with the current K/V types</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Best KV types for this context</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sets -ctk / -ctv to the most precise pair that fits the current context (K kept at least as precise as V)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Most GPU layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sets -ngl to the most layers that fit the GPU memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An upper bound: memory bandwidth ÷ bytes read per generated token (active weights + the KV cache up to the fill). Real decoding reaches roughly 50–80 % of it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> GB/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory bandwidth the weights are read at, in decimal GB/s; the machine&apos;s figure unless you change it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use the machine&apos;s own bandwidth figure</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bandwidth</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>K %1 / V %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Does not fit with %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Largest context with %1: %2 tokens (%3 in all)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No K/V types fit this context: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Best K/V types for this context: K %1 / V %2 (%3 in all)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Does not fit with any number of GPU layers: the rest of the model, the KV cache and the buffers exceed the host memory at these settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Most GPU layers that fit: %1 (%2 in all)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This machine has no GPU: every layer runs on the CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decode speed: — (llama-server would refuse these settings)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decode speed: enter the memory bandwidth to estimate it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decode speed ≤ %1 t/s (full %2 slot) · ≤ %3 t/s (half): an upper bound</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>AppSettings</name>
    <message>
        <source>The settings file %1 could not be read and could not be moved aside; defaults are used and it will be overwritten on exit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The settings file could not be read; it was moved to %1 and the defaults are used.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ChartStyle</name>
    <message>
        <source>Weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recurrent state (RS)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compute buffer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Output buffer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overhead</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>does not fit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>size unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ComparisonTable</name>
    <message>
        <source>Device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Component</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Predicted MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Actual MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The estimate next to the buffers llama-server logged while loading (-lv 4); highlighted rows are off by more than 1 %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Off by more than %1 % and more than the log&apos;s rounding</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>FailureDialog</name>
    <message>
        <source>llama-server failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Why the launch ended, as read from llama-server&apos;s log and exit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The log lines that decided the diagnosis</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What to change before the next launch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Full log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show everything llama-server printed (stdout and stderr)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>llama-server&apos;s complete output, read-only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close without changing the settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No fix computed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1
(%2 can hold at most %3: the buffers allocated before the failure plus the one that failed.)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change and launch again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Port %1 is taken by another program: pick another port, or 0 for any free port.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The port is taken by another program: pick another port, or 0 for any free port.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the llama-server binary with Browse.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This llama-server does not accept %1: remove it from the extra flags, or choose a build that knows it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a flag</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model file is gone: choose it again in the library.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This llama-server cannot load the model: a newer build may know its architecture.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lower the context, the KV cache types, the slots or the GPU layers.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>llama-server did not answer /health in time: check the log, then try again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>See the full log below.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LaunchPanel</name>
    <message>
        <source>Re-spelled for this build: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is a built-in card with no model file: choose a GGUF file in the library to launch it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>llama-server would refuse these settings: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No llama-server binary: choose one with Browse.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>llama-server was not found on PATH: choose it with Browse.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checking %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose llama-server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start llama-server with the command line above</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checking the command line…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refused: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The llama-server process&apos;s state</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading the model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ready at %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopping</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>llama-server not found on PATH: choose it with Browse</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The llama-server program to run (default: $LLAMAFIT_LLAMA_SERVER, else llama-server on PATH)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the llama-server program</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>llama-server:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The build, as `llama-server --version` reports it; the flags are spelled the way this build knows them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Version:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--host: the address llama-server listens on (127.0.0.1: this computer only)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Host:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warning: on a non-loopback address the server is reachable from the network, without a password.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>llama-server has no authentication unless --api-key is among the extra flags</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>any free port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--port: the TCP port (0: any free port, picked at launch)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Port:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The exact command Launch runs (-lv 4 and --metrics feed the live view; with port 0 a free --port is added at launch)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy the command line to the clipboard</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save this launch as a shell script, a Windows .bat, a llama-server preset (--models-preset) or a llama-swap entry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Command:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flags spelled differently for the probed llama-server build</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Launch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop llama-server (SIGTERM, then SIGKILL after a grace period)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Server:</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LiveTimeChart</name>
    <message>
        <source>seconds since ready</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LiveView</name>
    <message>
        <source>llama-server: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No prediction to compare: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server&apos;s log could not be read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Highlighted components differ from the prediction by more than 1 %.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every component is within 1 % of the prediction.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LogPanel</name>
    <message>
        <source>All levels</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Info and above</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warnings and errors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Errors only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show only log lines at or above this level (the I/W/E/D letter llama-server prints after the time; more lines with -lv / --verbosity)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search the log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Highlights every match in the log; Enter jumps to the next one</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Matching lines only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hide the log lines that do not contain the search text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>llama-server&apos;s output (stdout and stderr), newest at the bottom</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MachinePanel</name>
    <message>
        <source>BIOS VRAM split</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The machine the plan is for: a built-in profile, or this machine as Vulkan, sysfs and /proc report it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The dedicated VRAM the BIOS carves out of an APU&apos;s memory (UMA frame buffer size); the rest is the system RAM the OS sees</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory kept free in every pool; llama-server&apos;s --fit-target default is 1024 MiB. A configuration inside this margin is shown as tight.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Machine</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Safety margin</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This machine (detected): %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 GiB VRAM / %2 GiB system</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>size unknown</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>LlamaFit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Live</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Machine</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Advice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Launch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open GGUF model...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Light</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dark</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The language changes the next time LlamaFit starts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About LlamaFit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot open %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 — LlamaFit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open GGUF model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MemoryChart</name>
    <message>
        <source>Whether llama-server&apos;s memory fits every pool of this machine, with the safety margin (--fit-target)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reserved (OS, desktop)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Other (page cache, shared memory)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run-time growth (up to)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The estimate could not be placed on this machine&apos;s memory.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>llama-server would refuse these settings:
%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refused settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>driver: %1 free</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overall: %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The driver reports %1 free, more than the %2 BIOS carve-out: llama.cpp adds up every memory heap of an integrated GPU, including shared GPU memory that is system RAM the OS also uses. The line is the carve-out, which is what the GPU really has.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>• %1 buffer: %2 — %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>• %1: %2 — %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>  Outside every llama.cpp buffer: the GPU runtime&apos;s context, driver allocations, pipelines and scratch (LlamaFit&apos;s allowance per backend).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>up to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 in %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reserved (OS, desktop, other programs)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Other llama-server memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · %2 over</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · %2 free</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MemoryTimeChart</name>
    <message>
        <source>predicted host total</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>predicted %1 total</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory while llama-server runs: its resident memory, the host&apos;s available memory and each GPU&apos;s memory in use, against the predicted totals (dashed) and the pool limits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>llama-server resident memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>host memory available</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ModelLibraryModel</name>
    <message>
        <source>%1 / %2 active</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OK</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OK, with vision projector</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot be read: %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Built-in model card %1: sized from its metadata, no download needed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Split model, parts: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Vision projector (--mmproj): %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Parameters in the file; for a mixture of experts also those used per token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>general.file_type as llama-quantize names it, else the weight type with the most bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Training context in tokens: the default of -c / --ctx-size 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RS: recurrent state buffer (hybrid: with attention layers); SWA: sliding-window attention; MLA: multi-head latent attention; MoE: mixture of experts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compiled into LlamaFit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quantisation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Training context</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Badges</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Source</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RS (hybrid)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SWA</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MLA</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MoE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>built-in card</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hugging Face cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>llama.cpp cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LM Studio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ollama</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 B</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 M</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 K</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 KiB</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ModelPickerPanel</name>
    <message>
        <source>Filter models (name, architecture, quantisation, badges, folder)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shows only the models whose columns contain this text; Down moves into the list</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model passed to llama-server as -m / --model; double click or Enter chooses it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add folder...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Adds a folder of GGUF files to the library and scans it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Removes one of the folders you added from the library</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rescan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scans the Hugging Face, llama.cpp, LM Studio and Ollama folders and yours again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GGUF files read so far, of those found</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%v of %m files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stops the scan; the models found so far stay listed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What the last library scan found</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Built-in model cards: %1. No folder scanned yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scanning folders: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a folder of GGUF models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop listing the models in %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scanning: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scan cancelled. Models found before it stopped: %1, unreadable: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scan finished. Models found: %1, unreadable: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ModelProfiles</name>
    <message>
        <source>The saved settings of %1 no longer parse (%2); the defaults are used.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SettingsPanel</name>
    <message>
        <source>q8_0 KV is close to f16 for most tasks. q4_0 suits short Q&amp;A, summaries, classification and short code completion, but degrades maths, exact numbers and long-range lookups (needle in a haystack). K and V differ: keys vary per channel, values per token, so keep K at least as precise as V.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>llama.cpp stores q8_0 as %1 bytes per %2 values (%3 bytes/value) and q4_0 as %4 bytes per %5 (%6): not ½ and ¼ of f16 as the seed&apos;s rule of thumb says.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-c / --ctx-size: context tokens, all slots together (llama.cpp pads it to a multiple of 256)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-c / --ctx-size: the exact context in tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-np / --parallel: server slots (concurrent requests); auto = 4 slots sharing one unified KV cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>auto (4, unified)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-ctk / --cache-type-k: the K cache type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-ctv / --cache-type-v: the V cache type (quantized types need flash attention)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-ngl / --n-gpu-layers: layers on the GPU, the output layer counted first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-ngl all: every layer and the output layer on the GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-b / --batch-size: logical batch in tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-ub / --ubatch-size: physical batch in tokens; the compute buffer grows with it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>auto</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>on</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-fa / --flash-attn on|off|auto</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-kvu / --kv-unified, -no-kvu / --no-kv-unified: one KV buffer shared by all slots; default = unified only with -np auto</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>full-size SWA cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--swa-full: sliding-window layers keep the whole context</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>mmap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none (copy)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-lm / --load-mode auto|mmap|none (none replaces the old --no-mmap)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. -t 8 --alias local -ot exps=CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Other llama-server flags, quoted as in a shell. Flags that change memory (-ot, -ts, -cmoe, ...) are applied to the estimate; the rest are passed to the launch.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Context</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>K cache type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>V cache type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flash attention</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unified KV</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Extra flags</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not applied: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Applied to the estimate: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Passed to llama-server: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not in the estimate: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This machine has no GPU: every layer runs on the CPU and -ngl has no effect.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>llama-server would refuse these settings: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refused: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SlotFillTable</name>
    <message>
        <source>Slot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>State</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Context tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fill</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each slot (-np / --parallel) and how full its context (-c / --ctx-size divided by the slots) is, from llama-server&apos;s /slots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>processing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>idle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 tokens in slot %3&apos;s context</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SweepChart</name>
    <message>
        <source>Total memory against context per K/V cache type pair (-ctk / -ctv). Click a point or a legend entry to set -c / --ctx-size and the cache types.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Context (tokens, -c)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: does not fit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Limit of %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory of %1 (the GPU the layers go to); the markers are the largest context that fits its budget.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Host memory (no layers on a GPU); the markers are the largest context that fits its budget.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 left out: llama-server refuses it for this model (%2)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ThroughputChart</name>
    <message>
        <source>Tokens per second: all slots together and each slot (-np / --parallel), measured from /slots and /metrics (--metrics) between two samples</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>decode, all slots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>prompt (finished requests)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>slot %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>llamafit::LaunchExport</name>
    <message>
        <source>Shell script (.sh)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Windows batch file (.bat)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>llama-server preset (.ini)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>llama-swap entry (.yaml)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shell scripts (*.sh)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch files (*.bat)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>INI files (*.ini)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>YAML files (*.yaml *.yml)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
