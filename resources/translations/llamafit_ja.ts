<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ja_JP">
<context>
    <name>AppSettings</name>
    <message>
        <source>The settings file %1 could not be read and could not be moved aside; defaults are used and it will be overwritten on exit.</source>
        <translation>設定ファイル %1 を読み込めず、退避もできませんでした。既定値を使い、終了時に上書きします。</translation>
    </message>
    <message>
        <source>The settings file could not be read; it was moved to %1 and the defaults are used.</source>
        <translation>設定ファイルを読み込めなかったため %1 に退避し、既定値を使います。</translation>
    </message>
</context>
<context>
    <name>ChartStyle</name>
    <message>
        <source>Weights</source>
        <translation>重み</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KVキャッシュ</translation>
    </message>
    <message>
        <source>Recurrent state (RS)</source>
        <translation>リカレント状態 (RS)</translation>
    </message>
    <message>
        <source>Compute buffer</source>
        <translation>計算バッファ</translation>
    </message>
    <message>
        <source>Output buffer</source>
        <translation>出力バッファ</translation>
    </message>
    <message>
        <source>Overhead</source>
        <translation>オーバーヘッド</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>収まる</translation>
    </message>
    <message>
        <source>tight</source>
        <translation>ぎりぎり</translation>
    </message>
    <message>
        <source>does not fit</source>
        <translation>収まらない</translation>
    </message>
    <message>
        <source>size unknown</source>
        <translation>サイズ不明</translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
</context>
<context>
    <name>FixText</name>
    <message>
        <source>the model weights</source>
        <translation>モデルの重み</translation>
    </message>
    <message>
        <source>the KV cache</source>
        <translation>KVキャッシュ</translation>
    </message>
    <message>
        <source>the recurrent state</source>
        <translation>リカレント状態</translation>
    </message>
    <message>
        <source>the output buffer</source>
        <translation>出力バッファ</translation>
    </message>
    <message>
        <source>the compute buffer</source>
        <translation>計算バッファ</translation>
    </message>
    <message>
        <source>a buffer</source>
        <translation>バッファ</translation>
    </message>
    <message>
        <source>Use a context of %1 tokens instead of %2 (shorter conversations)</source>
        <translation>コンテキスト長を %2 トークンから %1 トークンにする (会話が短くなる)</translation>
    </message>
    <message>
        <source>Store the KV cache as %1/%2 (same context, slightly lower precision)</source>
        <translation>KVキャッシュを %1/%2 で保持する (コンテキスト長はそのまま、精度はわずかに下がる)</translation>
    </message>
    <message>
        <source>Serve 1 request at a time instead of %1</source>
        <translation>同時に処理するリクエストを %1 件から 1 件にする</translation>
    </message>
    <message>
        <source>Serve %1 requests at a time instead of %2</source>
        <translation>同時に処理するリクエストを %2 件から %1 件にする</translation>
    </message>
    <message>
        <source>Process prompts in steps of %1 tokens instead of %2 (smaller compute buffer, slower prompt processing)</source>
        <translation>プロンプトを %2 トークンではなく %1 トークンずつ処理する (計算バッファは小さくなり、プロンプト処理は遅くなる)</translation>
    </message>
    <message>
        <source>Keep %1 more layers in system memory (slower generation)</source>
        <translation>さらに %1 レイヤーをシステムメモリに残す (生成が遅くなる)</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>%1 did not fit in %2: the settings need %3 there, %4 are available; no single change fits.</source>
        <translation>%1が %2 に収まりませんでした: この設定では %3 必要ですが、使えるのは %4 です。一つの変更だけでは収まりません。</translation>
    </message>
    <message>
        <source>%1 did not fit in %2: the settings need %3 there, %4 are available.</source>
        <translation>%1が %2 に収まりませんでした: この設定では %3 必要ですが、使えるのは %4 です。</translation>
    </message>
    <message>
        <source>context %1 → %2</source>
        <translation>コンテキスト長 %1 → %2</translation>
    </message>
    <message>
        <source>V cache %1 → %2</source>
        <translation>V キャッシュ %1 → %2</translation>
    </message>
    <message>
        <source>K cache %1 → %2</source>
        <translation>K キャッシュ %1 → %2</translation>
    </message>
    <message>
        <source>K/V cache %1/%2 → %3/%4</source>
        <translation>K/V キャッシュ %1/%2 → %3/%4</translation>
    </message>
    <message>
        <source>slots %1 → %2</source>
        <translation>スロット数 %1 → %2</translation>
    </message>
    <message>
        <source>ubatch %1 → %2</source>
        <translation>ubatch %1 → %2</translation>
    </message>
    <message>
        <source>GPU layers %1 → %2</source>
        <translation>GPU レイヤー数 %1 → %2</translation>
    </message>
    <message>
        <source>%1: %2 then needs %3 of the %4 available.</source>
        <translation>%1: このとき %2 には使用可能な %4 のうち %3 が必要です。</translation>
    </message>
</context>
<context>
    <name>MemoryChart</name>
    <message>
        <source>Run-time growth (up to)</source>
        <translation>実行中の増加 (最大)</translation>
    </message>
    <message>
        <source>• %1 buffer: %2 — %3</source>
        <translation>• %1 バッファ: %2 — %3</translation>
    </message>
    <message>
        <source>• %1: %2 — %3</source>
        <translation>• %1: %2 — %3</translation>
    </message>
    <message>
        <source>  Outside every llama.cpp buffer: the GPU runtime&apos;s context, driver allocations, pipelines and scratch (LlamaFit&apos;s allowance per backend).</source>
        <translation>  llama.cpp のどのバッファにも含まれないもの: GPU ランタイムのコンテキスト、ドライバの確保、パイプライン、スクラッチ (LlamaFit がバックエンドごとに見込む分)。</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>上限なし</translation>
    </message>
    <message>
        <source>up to %1</source>
        <translation>最大 %1</translation>
    </message>
    <message>
        <source>%1 in %2: %3</source>
        <translation>%2 の %1: %3</translation>
    </message>
    <message>
        <source>Reserved (OS, desktop, other programs)</source>
        <translation>予約済み (OS、デスクトップ、他のプログラム)</translation>
    </message>
    <message>
        <source>Other llama-server memory</source>
        <translation>llama-server のその他のメモリ</translation>
    </message>
    <message>
        <source>%1 · %2 over</source>
        <translation>%1 · %2 超過</translation>
    </message>
    <message>
        <source>%1 · %2 free</source>
        <translation>%1 · 空き %2</translation>
    </message>
    <message>
        <source>%1: nothing of llama-server&apos;s</source>
        <translation>%1: llama-server のメモリなし</translation>
    </message>
    <message>
        <source>• %1 %2 buffer: %3 — %4</source>
        <translation>• %1 %2 バッファ: %3 — %4</translation>
    </message>
    <message>
        <source>  --spec-type draft-mtp: a second llama.cpp context on the model&apos;s own NextN (MTP) block, with its own KV cache of the NextN layers, logits and compute buffer.</source>
        <translation>  --spec-type draft-mtp: モデル自身の NextN (MTP) ブロック用の 2 つ目の llama.cpp コンテキスト。NextN 層だけの KVキャッシュ、ロジット、計算バッファを持ちます。</translation>
    </message>
    <message>
        <source>  --lora / --lora-scaled: the adapters&apos; tensors, each on the device of the weight it modifies.</source>
        <translation>  --lora / --lora-scaled: アダプタのテンソル。それぞれが変更する重みと同じデバイスに置かれます。</translation>
    </message>
    <message>
        <source>MTP draft context</source>
        <translation>MTP ドラフトコンテキスト</translation>
    </message>
    <message>
        <source>LoRA adapters</source>
        <translation>LoRA アダプタ</translation>
    </message>
    <message>
        <source>Main context</source>
        <translation>メインコンテキスト</translation>
    </message>
    <message>
        <source>  -md: a second model with its own context: the target&apos;s context size and slots, its own K/V types (-ctkd/-ctvd, f16 by default) and GPU layers (-ngld).</source>
        <translation>  -md: 独自のコンテキストを持つ 2 つ目のモデル。コンテキスト長とスロット数はターゲットと同じで、K/V の型 (-ctkd/-ctvd、既定は f16) と GPU レイヤー数 (-ngld) は独自です。</translation>
    </message>
    <message>
        <source>  --mmproj: the vision projector&apos;s weights and the compute buffer its warm-up reserves for one image (--image-max-tokens, -fa).</source>
        <translation>  --mmproj: ビジョンプロジェクタの重みと、ウォームアップが画像 1 枚分確保する計算バッファ (--image-max-tokens、-fa)。</translation>
    </message>
    <message>
        <source>Draft model</source>
        <translation>ドラフトモデル</translation>
    </message>
    <message>
        <source>Vision projector</source>
        <translation>ビジョンプロジェクタ</translation>
    </message>
</context>
<context>
    <name>MemoryTimeChart</name>
    <message>
        <source>predicted host total</source>
        <translation>予測ホスト合計</translation>
    </message>
    <message>
        <source>predicted %1 total</source>
        <translation>予測 %1 合計</translation>
    </message>
    <message>
        <source>%1 limit</source>
        <translation>%1 の上限</translation>
    </message>
</context>
<context>
    <name>ModelProfiles</name>
    <message>
        <source>The saved settings of %1 no longer parse (%2); the defaults are used.</source>
        <translation>%1 の保存済み設定を解析できなくなりました (%2)。既定値を使います。</translation>
    </message>
</context>
<context>
    <name>PoolNames</name>
    <message>
        <source>System RAM</source>
        <translation>システム RAM</translation>
    </message>
    <message>
        <source>BIOS carve-out (dedicated VRAM)</source>
        <translation>BIOS の VRAM 割り当て (専用 VRAM)</translation>
    </message>
    <message>
        <source>GTT (system RAM the GPU can map)</source>
        <translation>GTT (GPU がマップできるシステム RAM)</translation>
    </message>
    <message>
        <source>Shared GPU memory (system RAM)</source>
        <translation>共有 GPU メモリ (システム RAM)</translation>
    </message>
</context>
<context>
    <name>SessionSpeed</name>
    <message>
        <source>Decode speed: no memory bandwidth figure for this machine (enter one in the advice panel)</source>
        <translation>デコード速度: このマシンのメモリ帯域幅の値がありません(アドバイスパネルで入力してください)</translation>
    </message>
    <message>
        <source>Decode speed with a full %1-token slot: ≤ %2 t/s bound · ~%3 t/s expected (%4)</source>
        <translation>%1 トークンのスロットが満杯のときのデコード速度: 上限 ≤ %2 t/s · 期待値 ~%3 t/s (%4)</translation>
    </message>
</context>
<context>
    <name>SizeRule</name>
    <message>
        <source>%1; %2</source>
        <translation>%1。出典: %2</translation>
    </message>
    <message>
        <source>blocks (and the output layer) offloaded by -ngl/-ts/-ot</source>
        <translation>-ngl/-ts/-ot で GPU に載せたブロック (と出力層)</translation>
    </message>
    <message>
        <source>host weights mapped from the GGUF file (page cache, resident once touched); token embeddings always stay on the CPU</source>
        <translation>GGUF ファイルからマップしたホスト側の重み (ページキャッシュ。一度触れると常駐)。トークン埋め込みは常に CPU に残る</translation>
    </message>
    <message>
        <source>Q4_0/Q4_K/IQ4_NL/MXFP4 matmul weights repacked for the AVX2 kernels: real RAM even with mmap (-nr turns it off)</source>
        <translation>AVX2 カーネル用に再パックした Q4_0/Q4_K/IQ4_NL/MXFP4 の行列積の重み: mmap でも実メモリを使う (-nr で無効)</translation>
    </message>
    <message>
        <source>host weights copied into RAM (-lm none)</source>
        <translation>RAM にコピーしたホスト側の重み (-lm none)</translation>
    </message>
    <message>
        <source>host weights copied into the first GPU&apos;s pinned host buffer (-lm none)</source>
        <translation>最初の GPU のピン留めホストバッファにコピーしたホスト側の重み (-lm none)</translation>
    </message>
    <message>
        <source>%1; includes the tied output, a second copy of token_embd</source>
        <translation>%1。共有された出力層 (token_embd の 2 つ目のコピー) を含む</translation>
    </message>
    <message>
        <source>logits: n_vocab x one row per slot, f32</source>
        <translation>ロジット: n_vocab × スロットごとに 1 行、f32</translation>
    </message>
    <message>
        <source>SWA KV cache: %1 cells x %2 streams, K %3 + V %4</source>
        <translation>SWA KVキャッシュ: %1 セル × %2 ストリーム、K %3 + V %4</translation>
    </message>
    <message>
        <source>non-SWA KV cache: %1 cells x %2 streams, K %3 + V %4</source>
        <translation>非 SWA KVキャッシュ: %1 セル × %2 ストリーム、K %3 + V %4</translation>
    </message>
    <message>
        <source>recurrent state: %1 rows of f32 conv (R) + SSM (S) state per recurrent layer</source>
        <translation>リカレント状態: リカレント層ごとに f32 の畳み込み (R) + SSM (S) 状態が %1 行</translation>
    </message>
    <message>
        <source>peak of ggml-alloc over the worst-case graphs llama-server reserves (a prompt-sized and a one-token ubatch)</source>
        <translation>llama-server が確保する最悪ケースのグラフ (プロンプト長と 1 トークンの ubatch) に対する ggml-alloc のピーク</translation>
    </message>
    <message>
        <source>token-embedding lookup on the CPU (every block offloaded)</source>
        <translation>CPU でのトークン埋め込みの参照 (全ブロックを GPU に載せた場合)</translation>
    </message>
    <message>
        <source>the host&apos;s buffers as llama-server -lv 4 logs them</source>
        <translation>llama-server -lv 4 がログに出すホストのバッファ</translation>
    </message>
    <message>
        <source>the device&apos;s buffers as llama-server -lv 4 logs them</source>
        <translation>llama-server -lv 4 がログに出すデバイスのバッファ</translation>
    </message>
    <message>
        <source>machine profile / discovery</source>
        <translation>マシンプロファイル / 検出結果</translation>
    </message>
    <message>
        <source>shared memory is system RAM</source>
        <translation>共有メモリはシステム RAM</translation>
    </message>
    <message>
        <source>with mmap the loader reads the GPU&apos;s weights through the mapping (src/llama-model-loader.cpp load_all_data; unmap_fragment drops the mapping, not the cached pages), so on a shared-memory iGPU they sit in the page cache and in the GPU buffer (llama.cpp PR #16095 comment, whyvl/ollama-vulkan#18); -lm none avoids it, and is the Vulkan iGPU default (ggml-vulkan.cpp mmap_support=false)</source>
        <translation>mmap ではローダーが GPU の重みをマッピング経由で読む (src/llama-model-loader.cpp load_all_data。unmap_fragment が外すのはマッピングだけでキャッシュ済みのページは残る) ため、共有メモリの iGPU ではページキャッシュと GPU バッファの両方に載る (llama.cpp PR #16095 のコメント、whyvl/ollama-vulkan#18)。-lm none で避けられ、Vulkan の iGPU では既定 (ggml-vulkan.cpp mmap_support=false)</translation>
    </message>
    <message>
        <source>tools/server/server-context.cpp server_prompt_cache: saved slot states in host memory, limit --cache-ram MiB (common/common.h default 8192, -1 no limit)</source>
        <translation>tools/server/server-context.cpp server_prompt_cache: ホストメモリに保存したスロットの状態。上限は --cache-ram MiB (common/common.h の既定は 8192、-1 で上限なし)</translation>
    </message>
    <message>
        <source>tools/server/server-context.cpp create_checkpoint: up to --ctx-checkpoints per slot (default 32), each one slot&apos;s recurrent rows + SWA cells (llama-memory-hybrid.cpp, llama-kv-cache-iswa.cpp state_write PARTIAL_ONLY)</source>
        <translation>tools/server/server-context.cpp create_checkpoint: スロットごとに最大 --ctx-checkpoints 個 (既定 32)。各チェックポイントは 1 スロット分のリカレント行 + SWA セル (llama-memory-hybrid.cpp、llama-kv-cache-iswa.cpp state_write PARTIAL_ONLY)</translation>
    </message>
    <message>
        <source>OS and other programs</source>
        <translation>OS と他のプログラム</translation>
    </message>
    <message>
        <source>desktop and other GPU users</source>
        <translation>デスクトップと他の GPU 利用者</translation>
    </message>
    <message>
        <source>%1 buffers in %2</source>
        <translation>%2 内の %1 のバッファ</translation>
    </message>
    <message>
        <source>mmap double mapping: weights also held in the page cache</source>
        <translation>mmap の二重マッピング: 重みがページキャッシュにも残る</translation>
    </message>
    <message>
        <source>prompt cache (--cache-ram %1)</source>
        <translation>プロンプトキャッシュ (--cache-ram %1)</translation>
    </message>
    <message>
        <source>context checkpoints (%1 per slot x %2 slots)</source>
        <translation>コンテキストのチェックポイント (スロットごとに %1 個 × %2 スロット)</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 の%2</translation>
    </message>
    <message>
        <source>vision projector: every tensor of the mmproj file</source>
        <translation>ビジョンプロジェクタ: mmproj ファイルのすべてのテンソル</translation>
    </message>
    <message>
        <source>vision projector warm-up: ggml-alloc over the graph of one %1 x %1 px image</source>
        <translation>ビジョンプロジェクタのウォームアップ: %1 × %1 px の画像 1 枚のグラフに対する ggml-alloc</translation>
    </message>
</context>
<context>
    <name>SpeedSource</name>
    <message numerus="yes">
        <source>%n llama-bench row(s)</source>
        <translation>
            <numerusform>llama-bench の %n 行</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n live run(s)</source>
        <translation>
            <numerusform>%n 回のライブ実行</numerusform>
        </translation>
    </message>
    <message>
        <source>CPU (no public row; an assumed figure)</source>
        <translation>CPU (公開データなし、仮定値)</translation>
    </message>
    <message>
        <source>RPC (taken as CPU)</source>
        <translation>RPC (CPU とみなす)</translation>
    </message>
    <message>
        <source>an unknown backend (taken as Vulkan)</source>
        <translation>不明なバックエンド (Vulkan とみなす)</translation>
    </message>
    <message>
        <source>public defaults for %1, MoE (docs/speed.md)</source>
        <translation>%1 の公開既定値、MoE (docs/speed.md)</translation>
    </message>
    <message>
        <source>public defaults for %1, dense (docs/speed.md)</source>
        <translation>%1 の公開既定値、密モデル (docs/speed.md)</translation>
    </message>
    <message>
        <source>%1 and %2</source>
        <translation>%1 と %2</translation>
    </message>
    <message>
        <source>learned from %1 on this machine</source>
        <translation>このマシンの %1 から学習</translation>
    </message>
    <message>
        <source> (decode: public default)</source>
        <translation> (デコード: 公開既定値)</translation>
    </message>
    <message>
        <source> (prompt: public default)</source>
        <translation> (プロンプト: 公開既定値)</translation>
    </message>
</context>
<context>
    <name>llamafit::AboutDialog</name>
    <message>
        <source>About LlamaFit</source>
        <translation>LlamaFit について</translation>
    </message>
    <message>
        <source>LlamaFit %1
Qt %2 (built with %3)
QCustomPlot %4
llama-server: %5</source>
        <translation>LlamaFit %1
Qt %2 (%3 でビルド)
QCustomPlot %4
llama-server: %5</translation>
    </message>
    <message>
        <source>not probed yet</source>
        <translation>未確認</translation>
    </message>
    <message>
        <source>&lt;h2&gt;LlamaFit&lt;/h2&gt;&lt;p&gt;Plan and launch llama.cpp&apos;s llama-server: see how much memory it will take before it starts, then watch it run.&lt;/p&gt;</source>
        <translation>&lt;h2&gt;LlamaFit&lt;/h2&gt;&lt;p&gt;llama.cpp の llama-server を計画して起動します。起動前に必要なメモリを確認し、動作中の様子を見られます。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Every sizing rule follows llama.cpp&apos;s own source (src/llama-kv-cache.cpp, src/llama-memory-recurrent.cpp, src/llama-model.cpp, ...) and is checked against what the real llama-server allocates.</source>
        <translation>サイズ計算の規則はすべて llama.cpp 自身のソース (src/llama-kv-cache.cpp、src/llama-memory-recurrent.cpp、src/llama-model.cpp など) に従い、実際の llama-server が確保する量と照合しています。</translation>
    </message>
</context>
<context>
    <name>llamafit::AdvicePanel</name>
    <message>
        <source>Largest context that fits</source>
        <translation>収まる最大のコンテキスト長</translation>
    </message>
    <message>
        <source>Sets -c to the largest context that fits this machine with the current K/V types</source>
        <translation>現在の K/V 型でこのマシンに収まる最大のコンテキスト長を -c に設定します</translation>
    </message>
    <message>
        <source>Best KV types for this context</source>
        <translation>このコンテキスト長に最適な KV 型</translation>
    </message>
    <message>
        <source>Sets -ctk / -ctv to the most precise pair that fits the current context (K kept at least as precise as V)</source>
        <translation>現在のコンテキスト長に収まる最も精度の高い組を -ctk / -ctv に設定します (K は V 以上の精度を保ちます)</translation>
    </message>
    <message>
        <source>Most GPU layers</source>
        <translation>GPU レイヤー数を最大に</translation>
    </message>
    <message>
        <source>Sets -ngl to the most layers that fit the GPU memory</source>
        <translation>GPU メモリに収まる最大のレイヤー数を -ngl に設定します</translation>
    </message>
    <message>
        <source>An upper bound: memory bandwidth ÷ bytes read per generated token (active weights + the KV cache up to the fill). Real decoding reaches roughly 50–80 % of it.</source>
        <translation>上限値: メモリ帯域 ÷ 生成トークンあたりの読み出しバイト数 (アクティブな重み + 埋まった分までの KVキャッシュ)。実際のデコードはおおむねその 50–80 % です。</translation>
    </message>
    <message>
        <source> GB/s</source>
        <translation> GB/s</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>不明</translation>
    </message>
    <message>
        <source>Memory bandwidth the weights are read at, in decimal GB/s; the machine&apos;s figure unless you change it</source>
        <translation>重みを読み出すメモリ帯域 (10 進の GB/s)。変更しない限りマシンの値を使います</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>リセット</translation>
    </message>
    <message>
        <source>Use the machine&apos;s own bandwidth figure</source>
        <translation>マシン自身の帯域の値を使う</translation>
    </message>
    <message>
        <source>Bandwidth</source>
        <translation>帯域</translation>
    </message>
    <message>
        <source>K %1 / V %2</source>
        <translation>K %1 / V %2</translation>
    </message>
    <message>
        <source>Does not fit with %1: %2</source>
        <translation>%1 では収まりません: %2</translation>
    </message>
    <message>
        <source>Largest context with %1: %2 tokens (%3 in all)</source>
        <translation>%1 での最大コンテキスト長: %2 トークン (合計 %3)</translation>
    </message>
    <message>
        <source>No K/V types fit this context: %1</source>
        <translation>このコンテキスト長に収まる K/V 型がありません: %1</translation>
    </message>
    <message>
        <source>Best K/V types for this context: K %1 / V %2 (%3 in all)</source>
        <translation>このコンテキスト長に最適な K/V 型: K %1 / V %2 (合計 %3)</translation>
    </message>
    <message>
        <source>Does not fit with any number of GPU layers: the rest of the model, the KV cache and the buffers exceed the host memory at these settings</source>
        <translation>GPU レイヤー数をいくつにしても収まりません: この設定ではモデルの残り、KVキャッシュ、バッファがホストメモリを超えます</translation>
    </message>
    <message>
        <source>Most GPU layers that fit: %1 (%2 in all)</source>
        <translation>収まる最大の GPU レイヤー数: %1 (合計 %2)</translation>
    </message>
    <message>
        <source>This machine has no GPU: every layer runs on the CPU</source>
        <translation>このマシンには GPU がありません: すべてのレイヤーが CPU で動きます</translation>
    </message>
    <message>
        <source>Decode speed: — (llama-server would refuse these settings)</source>
        <translation>デコード速度: — (llama-server はこの設定を拒否します)</translation>
    </message>
    <message>
        <source>Decode speed: enter the memory bandwidth to estimate it</source>
        <translation>デコード速度: 推定するにはメモリ帯域を入力してください</translation>
    </message>
    <message>
        <source>%1 needs %2 of %3</source>
        <translation>%1 には %2 必要ですが、予算は %3 です</translation>
    </message>
    <message>
        <source>does not fit even at 256 tokens: %1</source>
        <translation>256 トークンでも収まりません: %1</translation>
    </message>
    <message>
        <source>even K %1 / V %2 does not fit: %3</source>
        <translation>K %1 / V %2 でも収まりません: %3</translation>
    </message>
    <message>
        <source>llama-server accepts no K/V types for this model and settings</source>
        <translation>このモデルと設定で llama-server が受け付ける K/V 型がありません</translation>
    </message>
    <message>
        <source>Decode speed ≤ %1 t/s (full %2 slot) · ≤ %3 t/s (half): an upper bound
expected ~%4 t/s (full) · ~%5 t/s (half): %6</source>
        <translation>デコード速度 ≤ %1 t/s（満杯 %2 スロット）· ≤ %3 t/s（半分）：上限
予想 ~%4 t/s（満杯）· ~%5 t/s（半分）：%6</translation>
    </message>
    <message>
        <source>; decode ~%1 t/s expected at a full slot</source>
        <translation>。スロットが満杯のときのデコード速度は ~%1 t/s の見込み</translation>
    </message>
    <message>
        <source> (K %1 / V %2: ~%3 t/s)</source>
        <translation>(K %1 / V %2 では ~%3 t/s)</translation>
    </message>
</context>
<context>
    <name>llamafit::BenchmarkChart</name>
    <message>
        <source>Prompt processing (pp)</source>
        <translation>プロンプト処理 (pp)</translation>
    </message>
    <message>
        <source>Generation (tg)</source>
        <translation>生成 (tg)</translation>
    </message>
    <message>
        <source>Depth (tokens in the KV cache before the test)</source>
        <translation>深さ(テスト前に KV キャッシュにあるトークン数)</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>トークン/s</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>実測</translation>
    </message>
    <message>
        <source>expected</source>
        <translation>期待値</translation>
    </message>
    <message>
        <source>bound</source>
        <translation>上限</translation>
    </message>
</context>
<context>
    <name>llamafit::BenchmarkDialog</name>
    <message>
        <source>Benchmark with llama-bench</source>
        <translation>llama-bench でベンチマーク</translation>
    </message>
    <message>
        <source>KV cells filled before each test (llama-bench -d), separated by commas: &quot;0,4096,32768&quot; shows how speed falls as the context fills</source>
        <translation>各テストの前に埋める KV セル数(llama-bench -d)、カンマ区切り: &quot;0,4096,32768&quot; でコンテキストが埋まるにつれて速度がどう落ちるかが分かります</translation>
    </message>
    <message>
        <source>Prompt tokens per prompt-processing test (-p; 0 = no pp test)</source>
        <translation>プロンプト処理テストごとのプロンプトトークン数(-p。0 = pp テストなし)</translation>
    </message>
    <message>
        <source>Tokens generated per generation test (-n; 0 = no tg test)</source>
        <translation>生成テストごとの生成トークン数(-n。0 = tg テストなし)</translation>
    </message>
    <message>
        <source>Repetitions of each test (-r)</source>
        <translation>各テストの繰り返し回数(-r)</translation>
    </message>
    <message>
        <source>CPU threads (-t); 0 = llama-bench&apos;s default</source>
        <translation>CPU スレッド数(-t)。0 = llama-bench の既定値</translation>
    </message>
    <message>
        <source>default</source>
        <translation>既定</translation>
    </message>
    <message>
        <source>The llama-bench program (it ships next to llama-server)</source>
        <translation>llama-bench プログラム(llama-server と同じ場所に同梱されています)</translation>
    </message>
    <message>
        <source>Depths</source>
        <translation>深さ</translation>
    </message>
    <message>
        <source>Prompt tokens</source>
        <translation>プロンプトトークン数</translation>
    </message>
    <message>
        <source>Generated tokens</source>
        <translation>生成トークン数</translation>
    </message>
    <message>
        <source>Repetitions</source>
        <translation>繰り返し</translation>
    </message>
    <message>
        <source>Threads</source>
        <translation>スレッド</translation>
    </message>
    <message>
        <source>llama-bench</source>
        <translation>llama-bench</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>コマンド</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>実行</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>キャンセル</translation>
    </message>
    <message>
        <source>Runs of this model file on this machine stored earlier</source>
        <translation>このマシンで以前に保存した、このモデルファイルの実行結果</translation>
    </message>
    <message>
        <source>Run shown</source>
        <translation>表示中の実行</translation>
    </message>
    <message>
        <source>Test</source>
        <translation>テスト</translation>
    </message>
    <message>
        <source>Measured t/s</source>
        <translation>実測 t/s</translation>
    </message>
    <message>
        <source>±</source>
        <translation>±</translation>
    </message>
    <message>
        <source>Bound t/s</source>
        <translation>上限 t/s</translation>
    </message>
    <message>
        <source>Expected t/s</source>
        <translation>期待値 t/s</translation>
    </message>
    <message>
        <source>Expected vs measured</source>
        <translation>期待値と実測の差</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is a built-in card: open its GGUF file to benchmark it</source>
        <translation>「%1」は組み込みカードです: ベンチマークするには GGUF ファイルを開いてください</translation>
    </message>
    <message>
        <source>Test %1 of %2: %3</source>
        <translation>テスト %1 / %2: %3</translation>
    </message>
    <message>
        <source>Starting llama-bench...</source>
        <translation>llama-bench を起動しています...</translation>
    </message>
    <message>
        <source>Cancelling...</source>
        <translation>キャンセルしています...</translation>
    </message>
    <message>
        <source>Cancelled: llama-bench was stopped and nothing was stored.</source>
        <translation>キャンセルしました: llama-bench を停止し、何も保存していません。</translation>
    </message>
    <message>
        <source>llama-bench failed: %1</source>
        <translation>llama-bench が失敗しました: %1</translation>
    </message>
    <message>
        <source>Finished; stored in %1</source>
        <translation>完了しました。保存先: %1</translation>
    </message>
    <message>
        <source>Finished, but not stored: %1</source>
        <translation>完了しましたが保存できませんでした: %1</translation>
    </message>
    <message>
        <source>%1 · build %2 · %3 tests</source>
        <translation>%1 · ビルド %2 · テスト %3 件</translation>
    </message>
    <message>
        <source>Some stored runs could not be read: %1</source>
        <translation>保存済みの実行の一部を読み込めませんでした: %1</translation>
    </message>
    <message>
        <source>llama.cpp build %1 · predicted with %2</source>
        <translation>llama.cpp ビルド %1 · 予測に使用: %2</translation>
    </message>
    <message>
        <source> · prompt rates are not predicted: the machine profile has no FP16 TFLOPS figure</source>
        <translation> · プロンプト速度は予測していません: マシンプロファイルに FP16 TFLOPS の値がありません</translation>
    </message>
</context>
<context>
    <name>llamafit::ClusterPanel</name>
    <message>
        <source>Add host</source>
        <translation>ホストを追加</translation>
    </message>
    <message>
        <source>Remove host</source>
        <translation>ホストを削除</translation>
    </message>
    <message>
        <source>Ask hosts</source>
        <translation>ホストに問い合わせ</translation>
    </message>
    <message>
        <source>Default (by free memory)</source>
        <translation>既定 (空きメモリ順)</translation>
    </message>
    <message>
        <source>Host (HOST:PORT)</source>
        <translation>ホスト (HOST:PORT)</translation>
    </message>
    <message>
        <source>Free MiB</source>
        <translation>空き MiB</translation>
    </message>
    <message>
        <source>The ggml-rpc-servers llama-server splits the model over besides this machine (--rpc), in order, and the free memory each reports</source>
        <translation>llama-server がこのマシンのほかにモデルを分割する ggml-rpc-server (--rpc) を順に並べたものと、それぞれが報告する空きメモリ</translation>
    </message>
    <message>
        <source>Run llama-server --rpc ... --list-devices: each host answers with the free memory it really has</source>
        <translation>llama-server --rpc ... --list-devices を実行します: 各ホストが実際に持つ空きメモリを答えます</translation>
    </message>
    <message>
        <source>No -ts: llama.cpp splits the layers by the free memory each device reports</source>
        <translation>-ts なし: llama.cpp は各デバイスが報告する空きメモリに応じてレイヤーを分割します</translation>
    </message>
    <message>
        <source>Layer split (-ts), in llama.cpp&apos;s device order:</source>
        <translation>レイヤー分割 (-ts)、llama.cpp のデバイス順:</translation>
    </message>
    <message>
        <source>Host %1: %2</source>
        <translation>ホスト %1: %2</translation>
    </message>
    <message>
        <source>%1 is listed twice: --rpc names each server once</source>
        <translation>%1 が2回指定されています: --rpc には各サーバーを1回だけ指定します</translation>
    </message>
    <message>
        <source>Enter the free memory of %1 in MiB, or ask the hosts</source>
        <translation>%1 の空きメモリを MiB で入力するか、ホストに問い合わせてください</translation>
    </message>
    <message>
        <source>The free memory of %1 must be a whole number of MiB, not &quot;%2&quot;</source>
        <translation>%1 の空きメモリは MiB 単位の整数で指定してください (&quot;%2&quot; ではなく)</translation>
    </message>
    <message>
        <source>No -ts: by each device&apos;s free memory</source>
        <translation>-ts なし: 各デバイスの空きメモリ順</translation>
    </message>
    <message>
        <source>Add a host first.</source>
        <translation>先にホストを追加してください。</translation>
    </message>
    <message>
        <source>Asking %1...</source>
        <translation>%1 に問い合わせ中...</translation>
    </message>
    <message>
        <source>Could not ask the hosts: %1</source>
        <translation>ホストに問い合わせできませんでした: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n host(s) answered.</source>
        <translation>
            <numerusform>%n 台のホストが応答しました。</numerusform>
        </translation>
    </message>
    <message>
        <source>Best split</source>
        <translation>最適な分割</translation>
    </message>
    <message>
        <source>Commands for another host...</source>
        <translation>別のホスト用のコマンド...</translation>
    </message>
    <message>
        <source>The -ts that lets the largest context fit every device, searched layer by layer; -c stays as it is</source>
        <translation>すべてのデバイスに最大のコンテキストが収まる -ts をレイヤー単位で探します。-c はそのままです</translation>
    </message>
    <message>
        <source>The activations cross to the next device after its last layer, and the logits come back; a link&apos;s latency adds to this per RPC host</source>
        <translation>各デバイスの最後のレイヤーの後で活性値が次のデバイスへ渡り、ロジットが戻ってきます。リンクの遅延は RPC ホストごとにこれに加わります</translation>
    </message>
    <message>
        <source>A shell line, systemd unit or .bat that starts ggml-rpc-server on the selected host</source>
        <translation>選択したホストで ggml-rpc-server を起動するシェルの行、systemd ユニット、または .bat</translation>
    </message>
    <message>
        <source>llama.cpp&apos;s default split fits -c %1</source>
        <translation>llama.cpp の既定の分割では -c %1 まで収まります</translation>
    </message>
    <message>
        <source>llama.cpp&apos;s default split fits no context</source>
        <translation>llama.cpp の既定の分割ではどのコンテキストも収まりません</translation>
    </message>
    <message>
        <source>No split fits even -c 256 on these devices; %1.</source>
        <translation>これらのデバイスでは -c 256 でも収まる分割がありません。%1。</translation>
    </message>
    <message>
        <source>Best split -ts %1 fits -c %2; %3.</source>
        <translation>最適な分割 -ts %1 では -c %2 まで収まります。%3。</translation>
    </message>
    <message>
        <source>The plan&apos;s -c %1 is larger than that.</source>
        <translation>計画の -c %1 はそれより大きいです。</translation>
    </message>
    <message>
        <source>Network traffic unknown: %1</source>
        <translation>ネットワーク通信量は不明です: %1</translation>
    </message>
    <message>
        <source>%1 KiB per token cross the network; +%2 ms at 1 Gbit/s, +%3 at 2.5, +%4 at 10.</source>
        <translation>トークンごとに %1 KiB がネットワークを通ります。1 Gbit/s で +%2 ms、2.5 で +%3、10 で +%4。</translation>
    </message>
    <message>
        <source>Decode bound %1 t/s becomes %2 / %3 / %4 t/s.</source>
        <translation>デコード上限 %1 t/s は %2 / %3 / %4 t/s になります。</translation>
    </message>
    <message>
        <source>Running llama-server, per RPC host:</source>
        <translation>実行中の llama-server、RPC ホストごと:</translation>
    </message>
    <message>
        <source>%1 MiB allocated of %2 MiB free</source>
        <translation>空き %2 MiB のうち %1 MiB を確保</translation>
    </message>
    <message>
        <source>%1 MiB allocated</source>
        <translation>%1 MiB を確保</translation>
    </message>
    <message>
        <source>(predicted %1 MiB)</source>
        <translation>(予測 %1 MiB)</translation>
    </message>
    <message>
        <source>Serve this machine</source>
        <translation>このマシンを提供</translation>
    </message>
</context>
<context>
    <name>llamafit::ComparisonTable</name>
    <message>
        <source>Device</source>
        <translation>デバイス</translation>
    </message>
    <message>
        <source>Component</source>
        <translation>コンポーネント</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>誤差</translation>
    </message>
    <message>
        <source>The estimate next to the buffers llama-server logged while loading (-lv 4); highlighted rows are off by more than 1 %</source>
        <translation>読み込み中に llama-server がログに出したバッファ (-lv 4) と推定値の比較。強調表示の行は 1 % を超えてずれています</translation>
    </message>
    <message>
        <source>Off by more than %1 % and more than the log&apos;s rounding</source>
        <translation>%1 % 超、かつログの丸めを超えてずれています</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>予測</translation>
    </message>
    <message>
        <source>Actual</source>
        <translation>実測</translation>
    </message>
    <message>
        <source>Error %</source>
        <translation>誤差 %</translation>
    </message>
</context>
<context>
    <name>llamafit::EnginesDialog</name>
    <message>
        <source>llama-server builds</source>
        <translation>llama-server のビルド</translation>
    </message>
    <message>
        <source>llama-server</source>
        <translation>llama-server</translation>
    </message>
    <message>
        <source>From</source>
        <translation>入手元</translation>
    </message>
    <message>
        <source>Build</source>
        <translation>ビルド</translation>
    </message>
    <message>
        <source>Devices</source>
        <translation>デバイス</translation>
    </message>
    <message>
        <source>Each build was run with --version and --list-devices</source>
        <translation>各ビルドを --version と --list-devices で実行して調べました</translation>
    </message>
    <message>
        <source>&amp;Use this build</source>
        <translation>このビルドを使う(&amp;U)</translation>
    </message>
    <message>
        <source>The backend of the build to get: Vulkan runs on AMD, Intel and NVIDIA GPUs</source>
        <translation>入手するビルドのバックエンド: Vulkan は AMD・Intel・NVIDIA の GPU で動きます</translation>
    </message>
    <message>
        <source>&amp;Get llama.cpp&apos;s release build</source>
        <translation>llama.cpp の公式ビルドを入手(&amp;G)</translation>
    </message>
    <message>
        <source>Downloads llama.cpp&apos;s latest official build for this machine from GitHub, checks its published sha256, and unpacks it into LlamaFit&apos;s engines folder</source>
        <translation>このマシン用の llama.cpp 最新公式ビルドを GitHub からダウンロードし、公開された sha256 を確認して LlamaFit のエンジンフォルダに展開します</translation>
    </message>
    <message>
        <source>Looking for llama-server builds...</source>
        <translation>llama-server のビルドを探しています...</translation>
    </message>
    <message>
        <source>does not run: %1</source>
        <translation>実行できません: %1</translation>
    </message>
    <message>
        <source>No llama-server on this machine: get llama.cpp&apos;s release build.</source>
        <translation>このマシンに llama-server がありません。llama.cpp の公式ビルドを入手してください。</translation>
    </message>
    <message numerus="yes">
        <source>%n build(s) found.</source>
        <translation>
            <numerusform>%n 個のビルドが見つかりました。</numerusform>
        </translation>
    </message>
    <message>
        <source>Getting llama.cpp&apos;s %1 build...</source>
        <translation>llama.cpp の %1 ビルドを入手中...</translation>
    </message>
    <message>
        <source>llama.cpp&apos;s build could not be had: %1</source>
        <translation>llama.cpp のビルドを入手できませんでした: %1</translation>
    </message>
</context>
<context>
    <name>llamafit::FailureDialog</name>
    <message>
        <source>llama-server failed</source>
        <translation>llama-server が失敗しました</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Why the launch ended, as read from llama-server&apos;s log and exit</source>
        <translation>llama-server のログと終了状態から読み取った、起動が終わった理由</translation>
    </message>
    <message>
        <source>The log lines that decided the diagnosis</source>
        <translation>診断の決め手になったログ行</translation>
    </message>
    <message>
        <source>What to change before the next launch</source>
        <translation>次の起動の前に変更すること</translation>
    </message>
    <message>
        <source>Full log</source>
        <translation>全ログ</translation>
    </message>
    <message>
        <source>Show everything llama-server printed (stdout and stderr)</source>
        <translation>llama-server の出力をすべて表示します (stdout と stderr)</translation>
    </message>
    <message>
        <source>llama-server&apos;s complete output, read-only</source>
        <translation>llama-server の全出力 (読み取り専用)</translation>
    </message>
    <message>
        <source>Close without changing the settings</source>
        <translation>設定を変えずに閉じます</translation>
    </message>
    <message>
        <source>No fix computed: %1</source>
        <translation>修正案を計算できません: %1</translation>
    </message>
    <message>
        <source>%1
(%2 can hold at most %3: the buffers allocated before the failure plus the one that failed.)</source>
        <translation>%1
(%2 に確保できるのは最大 %3 です: 失敗前に確保したバッファと、失敗したバッファの合計。)</translation>
    </message>
    <message>
        <source>Change and launch again</source>
        <translation>変更して再起動</translation>
    </message>
    <message>
        <source>Port %1 is taken by another program: pick another port, or 0 for any free port.</source>
        <translation>ポート %1 は他のプログラムが使用中です: 別のポートか、空きポートを選ぶ 0 を指定してください。</translation>
    </message>
    <message>
        <source>The port is taken by another program: pick another port, or 0 for any free port.</source>
        <translation>ポートは他のプログラムが使用中です: 別のポートか、空きポートを選ぶ 0 を指定してください。</translation>
    </message>
    <message>
        <source>Choose the llama-server binary with Browse.</source>
        <translation>「参照」で llama-server の実行ファイルを選んでください。</translation>
    </message>
    <message>
        <source>This llama-server does not accept %1: remove it from the extra flags, or choose a build that knows it.</source>
        <translation>この llama-server は %1 を受け付けません: 追加フラグから外すか、対応するビルドを選んでください。</translation>
    </message>
    <message>
        <source>a flag</source>
        <translation>あるフラグ</translation>
    </message>
    <message>
        <source>The model file is gone: choose it again in the library.</source>
        <translation>モデルファイルがありません: ライブラリで選び直してください。</translation>
    </message>
    <message>
        <source>This llama-server cannot load the model: a newer build may know its architecture.</source>
        <translation>この llama-server はモデルを読み込めません: 新しいビルドならこのアーキテクチャに対応しているかもしれません。</translation>
    </message>
    <message>
        <source>Lower the context, the KV cache types, the slots or the GPU layers.</source>
        <translation>コンテキスト長、KVキャッシュの型、スロット数、GPU レイヤー数のいずれかを下げてください。</translation>
    </message>
    <message>
        <source>llama-server did not answer /health in time: check the log, then try again.</source>
        <translation>llama-server が時間内に /health に応答しませんでした: ログを確認してから再試行してください。</translation>
    </message>
    <message>
        <source>See the full log below.</source>
        <translation>下の全ログを見てください。</translation>
    </message>
    <message>
        <source>Nothing listens at %1: start ggml-rpc-server on that host (ggml-rpc-server -H ADDRESS -p PORT), or remove it from --rpc.</source>
        <translation>%1 で待ち受けているものがありません: そのホストで ggml-rpc-server を起動するか (ggml-rpc-server -H ADDRESS -p PORT)、--rpc から外してください。</translation>
    </message>
    <message>
        <source>an RPC server&apos;s address</source>
        <translation>RPC サーバーのアドレス</translation>
    </message>
    <message>
        <source>Run the same llama.cpp build on every host: the RPC protocol changes between builds.</source>
        <translation>すべてのホストで同じ llama.cpp ビルドを実行してください: RPC プロトコルはビルドごとに変わります。</translation>
    </message>
    <message>
        <source>An RPC host went away: restart its ggml-rpc-server, then launch again.</source>
        <translation>RPC ホストが応答しなくなりました: その ggml-rpc-server を再起動してから、もう一度起動してください。</translation>
    </message>
    <message>
        <source>The RPC host %1 went away: restart its ggml-rpc-server, then launch again.</source>
        <translation>RPC ホスト %1 が応答しなくなりました: その ggml-rpc-server を再起動してから、もう一度起動してください。</translation>
    </message>
    <message>
        <source>Free memory on the RPC host %1, or give it a smaller share (-ts), or lower the context, the KV cache types or the slots.</source>
        <translation>RPC ホスト %1 のメモリを空けるか、その割り当て (-ts) を減らすか、コンテキスト長、KVキャッシュの型、スロット数を下げてください。</translation>
    </message>
    <message>
        <source>Unpack the whole llama.cpp release into one folder, or fetch a build in Server &gt; llama-server builds: llama-server needs the libraries that came with it.</source>
        <translation>llama.cpp のリリースを丸ごと一つのフォルダに展開するか、サーバー サーバー &gt; llama-server ビルドでビルドを取得gt; llama-server のビルド でビルドを取得してください。llama-server には同梱のライブラリが必要です。</translation>
    </message>
</context>
<context>
    <name>llamafit::GetModelsDialog</name>
    <message>
        <source>fits</source>
        <translation>収まる</translation>
    </message>
    <message>
        <source>tight</source>
        <translation>ぎりぎり</translation>
    </message>
    <message>
        <source>does not fit</source>
        <translation>収まらない</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>不明</translation>
    </message>
    <message>
        <source>Get models from Hugging Face</source>
        <translation>Hugging Face からモデルを入手</translation>
    </message>
    <message>
        <source>Search for a GGUF model, then pick a repo to see which quant fits %1.</source>
        <translation>GGUF モデルを検索し、リポジトリを選ぶと %1 に収まる量子化がわかります。</translation>
    </message>
    <message>
        <source>Model name, e.g. Qwen3 8B</source>
        <translation>モデル名 (例: Qwen3 8B)</translation>
    </message>
    <message>
        <source>Searches Hugging Face for GGUF repos, most downloaded first</source>
        <translation>Hugging Face で GGUF リポジトリを検索します (ダウンロード数の多い順)</translation>
    </message>
    <message>
        <source>&amp;Search</source>
        <translation>検索(&amp;S)</translation>
    </message>
    <message>
        <source>Repo</source>
        <translation>リポジトリ</translation>
    </message>
    <message>
        <source>Downloads</source>
        <translation>ダウンロード数</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>パラメータ数</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>アーキテクチャ</translation>
    </message>
    <message>
        <source>Pick a repo to size each of its quants for this machine</source>
        <translation>リポジトリを選ぶと、各量子化をこのマシン向けに見積もります</translation>
    </message>
    <message>
        <source>Sized from each quant&apos;s GGUF header, read without downloading the model: the same estimate as for a file on disk</source>
        <translation>各量子化の GGUF ヘッダーから見積もります (モデル本体はダウンロードしません)。ディスク上のファイルと同じ見積もりです</translation>
    </message>
    <message>
        <source>&amp;Download</source>
        <translation>ダウンロード(&amp;D)</translation>
    </message>
    <message>
        <source>Downloads the selected quant (and its vision projector) into the Hugging Face cache, checked by sha256</source>
        <translation>選んだ量子化 (とビジョンプロジェクタ) を Hugging Face キャッシュにダウンロードし、sha256 で検証します</translation>
    </message>
    <message>
        <source>&amp;Cancel download</source>
        <translation>ダウンロードを中止(&amp;C)</translation>
    </message>
    <message>
        <source>Stops the download; what arrived is kept and the next download resumes it</source>
        <translation>ダウンロードを止めます。受信済みの部分は残り、次回のダウンロードで続きから再開します</translation>
    </message>
    <message>
        <source>Searching for &quot;%1&quot;...</source>
        <translation>「%1」を検索中...</translation>
    </message>
    <message>
        <source>The search failed: %1</source>
        <translation>検索に失敗しました: %1</translation>
    </message>
    <message>
        <source> (gated: needs HF_TOKEN)</source>
        <translation> (制限付き: HF_TOKEN が必要)</translation>
    </message>
    <message>
        <source>No GGUF repo matches.</source>
        <translation>一致する GGUF リポジトリはありません。</translation>
    </message>
    <message numerus="yes">
        <source>%n repo(s) found.</source>
        <translation>
            <numerusform>%n 件のリポジトリが見つかりました。</numerusform>
        </translation>
    </message>
    <message>
        <source>Reading the quants&apos; headers of %1 (no model data is downloaded)...</source>
        <translation>%1 の各量子化のヘッダーを読み込み中 (モデルのデータはダウンロードしません)...</translation>
    </message>
    <message>
        <source>%1 could not be sized: %2</source>
        <translation>%1 を見積もれませんでした: %2</translation>
    </message>
    <message>
        <source>Quant</source>
        <translation>量子化</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>ダウンロード</translation>
    </message>
    <message>
        <source>At -c %1</source>
        <translation>-c %1 で</translation>
    </message>
    <message>
        <source>Max -c, %1</source>
        <translation>最大 -c (%1)</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>トークン/秒</translation>
    </message>
    <message>
        <source>  ★ recommended</source>
        <translation>  ★ おすすめ</translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>cannot load: %1</source>
        <translation>読み込めません: %1</translation>
    </message>
    <message>
        <source>%1 MiB in all</source>
        <translation>合計 %1 MiB</translation>
    </message>
    <message>
        <source>no</source>
        <translation>なし</translation>
    </message>
    <message>
        <source>%1: %2 is the best quality that fits %3 at these settings.</source>
        <translation>%1: この設定で %3 に収まる最高品質は %2 です。</translation>
    </message>
    <message>
        <source>%1: no quant fits %2 at these settings; lower the context or the K/V cache type.</source>
        <translation>%1: この設定で %2 に収まる量子化はありません。コンテキスト長か K/V キャッシュの型を下げてください。</translation>
    </message>
    <message numerus="yes">
        <source>%n queued</source>
        <translation>
            <numerusform>待機中 %n 件</numerusform>
        </translation>
    </message>
    <message>
        <source>Downloading %1...</source>
        <translation>%1 をダウンロード中...</translation>
    </message>
    <message>
        <source>%1: %2 of %3 GiB, %4 MiB/s, %5 left</source>
        <translation>%1: %3 GiB 中 %2 GiB、%4 MiB/s、残り %5</translation>
    </message>
    <message>
        <source>%1: cancelled; the part downloaded is kept and resumes next time</source>
        <translation>%1: 中止しました。ダウンロード済みの部分は残り、次回続きから再開します</translation>
    </message>
    <message>
        <source>%1 failed: %2</source>
        <translation>%1 に失敗しました: %2</translation>
    </message>
    <message>
        <source>%1 is downloaded and verified: %2</source>
        <translation>%1 のダウンロードと検証が完了しました: %2</translation>
    </message>
</context>
<context>
    <name>llamafit::LaunchExport</name>
    <message>
        <source>Shell script (.sh)…</source>
        <translation>シェルスクリプト (.sh)…</translation>
    </message>
    <message>
        <source>Windows batch file (.bat)…</source>
        <translation>Windows バッチファイル (.bat)…</translation>
    </message>
    <message>
        <source>llama-server preset (.ini)…</source>
        <translation>llama-server プリセット (.ini)…</translation>
    </message>
    <message>
        <source>llama-swap entry (.yaml)…</source>
        <translation>llama-swap エントリ (.yaml)…</translation>
    </message>
    <message>
        <source>Shell scripts (*.sh)</source>
        <translation>シェルスクリプト (*.sh)</translation>
    </message>
    <message>
        <source>Batch files (*.bat)</source>
        <translation>バッチファイル (*.bat)</translation>
    </message>
    <message>
        <source>INI files (*.ini)</source>
        <translation>INI ファイル (*.ini)</translation>
    </message>
    <message>
        <source>YAML files (*.yaml *.yml)</source>
        <translation>YAML ファイル (*.yaml *.yml)</translation>
    </message>
</context>
<context>
    <name>llamafit::LaunchPanel</name>
    <message>
        <source>Re-spelled for this build: %1</source>
        <translation>このビルド向けに書き換え: %1</translation>
    </message>
    <message>
        <source>%1 is a built-in card with no model file: choose a GGUF file in the library to launch it.</source>
        <translation>%1 はモデルファイルのない組み込みカードです: 起動するにはライブラリで GGUF ファイルを選んでください。</translation>
    </message>
    <message>
        <source>llama-server would refuse these settings: %1</source>
        <translation>llama-server はこの設定を拒否します: %1</translation>
    </message>
    <message>
        <source>llama-server was not found on PATH: choose it with Browse.</source>
        <translation>PATH に llama-server が見つかりません: 「参照」で選んでください。</translation>
    </message>
    <message>
        <source>Checking %1…</source>
        <translation>%1 を確認中…</translation>
    </message>
    <message>
        <source>Choose llama-server</source>
        <translation>llama-server を選択</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>エクスポートに失敗しました</translation>
    </message>
    <message>
        <source>Start llama-server with the command line above</source>
        <translation>上のコマンドラインで llama-server を起動します</translation>
    </message>
    <message>
        <source>Checking the command line…</source>
        <translation>コマンドラインを確認中…</translation>
    </message>
    <message>
        <source>Refused: %1</source>
        <translation>拒否: %1</translation>
    </message>
    <message>
        <source>The llama-server process&apos;s state</source>
        <translation>llama-server プロセスの状態</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>停止中</translation>
    </message>
    <message>
        <source>Stopped: %1</source>
        <translation>停止: %1</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>起動中</translation>
    </message>
    <message>
        <source>Loading the model</source>
        <translation>モデルを読み込み中</translation>
    </message>
    <message>
        <source>Ready at %1</source>
        <translation>%1 で準備完了</translation>
    </message>
    <message>
        <source>Stopping</source>
        <translation>停止しています</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失敗: %1</translation>
    </message>
    <message>
        <source>llama-server not found on PATH: choose it with Browse</source>
        <translation>PATH に llama-server が見つかりません: 「参照」で選んでください</translation>
    </message>
    <message>
        <source>The llama-server program to run (default: $LLAMAFIT_LLAMA_SERVER, else llama-server on PATH)</source>
        <translation>実行する llama-server プログラム (既定: $LLAMAFIT_LLAMA_SERVER、なければ PATH 上の llama-server)</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>参照…</translation>
    </message>
    <message>
        <source>Choose the llama-server program</source>
        <translation>llama-server プログラムを選びます</translation>
    </message>
    <message>
        <source>llama-server:</source>
        <translation>llama-server:</translation>
    </message>
    <message>
        <source>The build, as `llama-server --version` reports it; the flags are spelled the way this build knows them</source>
        <translation>`llama-server --version` が報告するビルド。フラグはこのビルドが認識する綴りで書かれます</translation>
    </message>
    <message>
        <source>--host: the address llama-server listens on (127.0.0.1: this computer only)</source>
        <translation>--host: llama-server が待ち受けるアドレス (127.0.0.1: このコンピューターのみ)</translation>
    </message>
    <message>
        <source>Host:</source>
        <translation>ホスト:</translation>
    </message>
    <message>
        <source>any free port</source>
        <translation>空きポート</translation>
    </message>
    <message>
        <source>--port: the TCP port (0: any free port, picked at launch)</source>
        <translation>--port: TCP ポート (0: 起動時に空きポートを選択)</translation>
    </message>
    <message>
        <source>The exact command Launch runs (-lv 4 and --metrics feed the live view; with port 0 a free --port is added at launch)</source>
        <translation>「起動」が実行するコマンドそのもの (-lv 4 と --metrics はライブビュー用。ポート 0 の場合は起動時に空きの --port を追加)</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>コピー</translation>
    </message>
    <message>
        <source>Copy the command line to the clipboard</source>
        <translation>コマンドラインをクリップボードにコピーします</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>エクスポート</translation>
    </message>
    <message>
        <source>Save this launch as a shell script, a Windows .bat, a llama-server preset (--models-preset) or a llama-swap entry</source>
        <translation>この起動設定をシェルスクリプト、Windows の .bat、llama-server プリセット (--models-preset)、llama-swap エントリとして保存します</translation>
    </message>
    <message>
        <source>Command:</source>
        <translation>コマンド:</translation>
    </message>
    <message>
        <source>Flags spelled differently for the probed llama-server build</source>
        <translation>確認した llama-server ビルド向けに綴りを変えたフラグ</translation>
    </message>
    <message>
        <source>Launch</source>
        <translation>起動</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop llama-server (SIGTERM, then SIGKILL after a grace period)</source>
        <translation>llama-server を停止します (SIGTERM、猶予期間後に SIGKILL)</translation>
    </message>
    <message>
        <source>Server:</source>
        <translation>サーバー:</translation>
    </message>
    <message>
        <source>port</source>
        <translation>ポート</translation>
    </message>
    <message>
        <source>%1 would make llama-server reachable from the network, without a password: tick &quot;Allow access from the network&quot; to launch it with an API key.</source>
        <translation>%1 では llama-server にネットワークからパスワードなしで接続できてしまいます。API キー付きで起動するには「ネットワークからのアクセスを許可」をオンにしてください。</translation>
    </message>
    <message>
        <source>Clients need the API key in %1 (&quot;Authorization: Bearer KEY&quot;).</source>
        <translation>クライアントには %1 の API キーが必要です（&quot;Authorization: Bearer KEY&quot;）。</translation>
    </message>
    <message>
        <source>Allow access from the network</source>
        <translation>ネットワークからのアクセスを許可</translation>
    </message>
    <message>
        <source>llama-server has no authentication of its own. With this box ticked a non-loopback host (e.g. 0.0.0.0) is allowed, and LlamaFit starts llama-server with --api-key-file %1, a key generated once in a file only you can read; clients send it as &quot;Authorization: Bearer KEY&quot;.</source>
        <translation>llama-server には独自の認証がありません。このボックスをオンにすると、ループバック以外のホスト（例: 0.0.0.0）を使えるようになり、LlamaFit は %1 を --api-key-file として llama-server を起動します。キーは一度だけ生成され、あなただけが読めるファイルに保存されます。クライアントは &quot;Authorization: Bearer KEY&quot; として送信します。</translation>
    </message>
    <message>
        <source>llama.cpp&apos;s projection failed: </source>
        <translation>llama.cpp の見積もりに失敗しました: </translation>
    </message>
    <message>
        <source>%1: llama.cpp %2 projects %3 MiB, LlamaFit %4 MiB</source>
        <translation>%1: llama.cpp %2 の見積もり %3 MiB、LlamaFit %4 MiB</translation>
    </message>
    <message>
        <source> -- differs by %1 (over 1 %: this build&apos;s rules may be newer than LlamaFit&apos;s)</source>
        <translation> -- 差 %1 (1 % 超: このビルドの規則が LlamaFit より新しい可能性があります)</translation>
    </message>
    <message>
        <source>llama.cpp&apos;s own projection of these settings (llama-fit-params --fit-print on, run in the background after each change) next to LlamaFit&apos;s, per device</source>
        <translation>この設定に対する llama.cpp 自身の見積もり (変更のたびにバックグラウンドで llama-fit-params --fit-print on を実行) と LlamaFit の見積もりをデバイスごとに並べたもの</translation>
    </message>
    <message>
        <source>llama.cpp:</source>
        <translation>llama.cpp:</translation>
    </message>
    <message>
        <source>%1 is a built-in card with no model file: download it with File &gt; Get models from Hugging Face (%2), or choose a GGUF file in the library.</source>
        <translation>%1 は組み込みカードで、モデルファイルがありません。ファイル &gt; Hugging Face からモデルを入手 (%2) でダウンロードするか、ライブラリで GGUF ファイルを選んでください。</translation>
    </message>
    <message>
        <source>No llama-server binary: choose one with Browse, or get llama.cpp&apos;s build with Server &gt; llama-server builds.</source>
        <translation>llama-server の実行ファイルがありません。参照で選ぶか、サーバー &gt; llama-server のビルド で llama.cpp のビルドを入手してください。</translation>
    </message>
</context>
<context>
    <name>llamafit::LiveTimeChart</name>
    <message>
        <source>seconds since ready</source>
        <translation>準備完了からの秒数</translation>
    </message>
    <message>
        <source>%1 (off scale: %2)</source>
        <translation>%1 (範囲外: %2)</translation>
    </message>
</context>
<context>
    <name>llamafit::LiveView</name>
    <message>
        <source>llama-server: %1</source>
        <translation>llama-server: %1</translation>
    </message>
    <message>
        <source>No prediction to compare: %1</source>
        <translation>比較する予測がありません: %1</translation>
    </message>
    <message>
        <source>The server&apos;s log could not be read: %1</source>
        <translation>サーバーのログを読み込めませんでした: %1</translation>
    </message>
    <message>
        <source>Highlighted components differ from the prediction by more than 1 %.</source>
        <translation>強調表示のコンポーネントは予測と 1 % を超えて異なります。</translation>
    </message>
    <message>
        <source>Every component is within 1 % of the prediction.</source>
        <translation>すべてのコンポーネントが予測の 1 % 以内です。</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>起動中</translation>
    </message>
    <message>
        <source>loading the model</source>
        <translation>モデルを読み込み中</translation>
    </message>
    <message>
        <source>ready</source>
        <translation>稼働中</translation>
    </message>
    <message>
        <source>stopping</source>
        <translation>停止処理中</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失敗</translation>
    </message>
    <message>
        <source> (%1 t/s)</source>
        <translation>（%1 t/s）</translation>
    </message>
    <message>
        <source>This run: %1 tokens generated%2, %3 prompt tokens%4</source>
        <translation>この実行: 生成 %1 トークン%2、プロンプト %3 トークン%4</translation>
    </message>
    <message>
        <source>Decode: —</source>
        <translation>デコード: —</translation>
    </message>
    <message>
        <source>Decode: — (no prediction to compare with)</source>
        <translation>デコード: —(比較する予測がありません)</translation>
    </message>
    <message>
        <source>Decode: — (no tokens generated yet)</source>
        <translation>デコード: —(まだトークンが生成されていません)</translation>
    </message>
    <message>
        <source>Decode %1 t/s %2</source>
        <translation>デコード %1 t/s %2</translation>
    </message>
    <message>
        <source>now</source>
        <translation>現在</translation>
    </message>
    <message>
        <source>run average</source>
        <translation>実行平均</translation>
    </message>
    <message>
        <source>%1 (expected: —) · effective bandwidth %2 GB/s (this machine has no bandwidth figure to compare with)</source>
        <translation>%1(期待値: —)· 実効帯域幅 %2 GB/s(このマシンには比較する帯域幅の値がありません)</translation>
    </message>
    <message>
        <source>%1 (expected %2) · effective bandwidth %3 GB/s of %4 GB/s (%5 %)</source>
        <translation>%1(期待値 %2)· 実効帯域幅 %3 GB/s / %4 GB/s(%5 %)</translation>
    </message>
    <message>
        <source>Effective bandwidth: the measured tokens/s x %1 MiB read per token (active weights, and the KV cache of %2 filled tokens per slot). Expected: the speed model&apos;s bound x efficiency %3 (%4).</source>
        <translation>実効帯域幅: 実測トークン/秒 × トークンあたり読み込む %1 MiB(アクティブな重みと、スロットあたり %2 トークン分の KV キャッシュ)。期待値: 速度モデルの上限 × 効率 %3(%4)。</translation>
    </message>
    <message>
        <source>Learning: %1 of the %2 generated tokens a run needs before the speed model learns from it</source>
        <translation>学習: 速度モデルが学習するには %2 トークンの生成が必要です(現在 %1)</translation>
    </message>
    <message>
        <source>Learning: %1 tokens at %2 % of the bandwidth bound so far; stored for %3 when the server stops</source>
        <translation>学習: これまで %1 トークン、帯域幅上限の %2 %。サーバー停止時に %3 の記録として保存します</translation>
    </message>
    <message>
        <source>Not learned from: %1 tokens were measured, %2 are needed</source>
        <translation>学習なし: 計測したのは %1 トークンで、%2 トークン必要です</translation>
    </message>
    <message>
        <source>This run could not be stored for learning: %1</source>
        <translation>この実行を学習用に保存できませんでした: %1</translation>
    </message>
    <message>
        <source>Learned from this run: %1 tokens at %2 t/s, %3 % of the %4 t/s bound; estimates for %5 now use it</source>
        <translation>この実行から学習しました: %1 トークン、%2 t/s(上限 %4 t/s の %3 %)。%5 の見積もりに反映されます</translation>
    </message>
</context>
<context>
    <name>llamafit::LogPanel</name>
    <message>
        <source>All levels</source>
        <translation>すべてのレベル</translation>
    </message>
    <message>
        <source>Info and above</source>
        <translation>情報以上</translation>
    </message>
    <message>
        <source>Warnings and errors</source>
        <translation>警告とエラー</translation>
    </message>
    <message>
        <source>Errors only</source>
        <translation>エラーのみ</translation>
    </message>
    <message>
        <source>Show only log lines at or above this level (the I/W/E/D letter llama-server prints after the time; more lines with -lv / --verbosity)</source>
        <translation>このレベル以上のログ行だけを表示します (llama-server が時刻の後に出す I/W/E/D の文字。-lv / --verbosity で行が増えます)</translation>
    </message>
    <message>
        <source>Search the log</source>
        <translation>ログを検索</translation>
    </message>
    <message>
        <source>Highlights every match in the log; Enter jumps to the next one</source>
        <translation>ログ内の一致をすべて強調表示します。Enter で次の一致へ移動します</translation>
    </message>
    <message>
        <source>Matching lines only</source>
        <translation>一致する行のみ</translation>
    </message>
    <message>
        <source>Hide the log lines that do not contain the search text</source>
        <translation>検索文字列を含まないログ行を隠します</translation>
    </message>
    <message>
        <source>llama-server&apos;s output (stdout and stderr), newest at the bottom</source>
        <translation>llama-server の出力 (stdout と stderr)。最新が一番下</translation>
    </message>
</context>
<context>
    <name>llamafit::MachinePanel</name>
    <message>
        <source>BIOS VRAM split</source>
        <translation>BIOS の VRAM 割り当て</translation>
    </message>
    <message>
        <source>The machine the plan is for: a built-in profile, or this machine as Vulkan, sysfs and /proc report it</source>
        <translation>計画の対象マシン: 組み込みプロファイル、または Vulkan・sysfs・/proc が報告するこのマシン</translation>
    </message>
    <message>
        <source>The dedicated VRAM the BIOS carves out of an APU&apos;s memory (UMA frame buffer size); the rest is the system RAM the OS sees</source>
        <translation>BIOS が APU のメモリから確保する専用 VRAM (UMA フレームバッファサイズ)。残りが OS から見えるシステム RAM です</translation>
    </message>
    <message>
        <source> MiB</source>
        <translation> MiB</translation>
    </message>
    <message>
        <source>Memory kept free in every pool; llama-server&apos;s --fit-target default is 1024 MiB. A configuration inside this margin is shown as tight.</source>
        <translation>各プールで空けておくメモリ。llama-server の --fit-target の既定値は 1024 MiB です。この余裕の範囲に入る構成は「ぎりぎり」と表示されます。</translation>
    </message>
    <message>
        <source>Machine</source>
        <translation>マシン</translation>
    </message>
    <message>
        <source>Safety margin</source>
        <translation>安全マージン</translation>
    </message>
    <message>
        <source>This machine (detected): %1</source>
        <translation>このマシン (検出): %1</translation>
    </message>
    <message>
        <source>%1 GiB VRAM / %2 GiB system</source>
        <translation>VRAM %1 GiB / システム %2 GiB</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>size unknown</source>
        <translation>サイズ不明</translation>
    </message>
    <message>
        <source>No offered split fits with margin: lower the context, use a smaller quantization or move experts/layers to the CPU</source>
        <translation>マージンを残して収まる割り当てがありません。コンテキストを減らすか、より小さい量子化を使うか、エキスパートやレイヤーを CPU に移してください</translation>
    </message>
    <message>
        <source>%1 VRAM / %2 system leaves the most system RAM (%3 free even when the prompt cache and checkpoints are full) while the GPU side keeps %4 free</source>
        <translation>VRAM %1 / システム %2 が最も多くのシステム RAM を残します (プロンプトキャッシュとチェックポイントが満杯でも空き %3)。GPU 側の空きは %4 です</translation>
    </message>
    <message>
        <source>; %1 is too small for the model</source>
        <translation>。%1 ではモデルが収まりません</translation>
    </message>
    <message>
        <source>; %1 is too tight on the GPU side</source>
        <translation>。%1 では GPU 側の余裕が足りません</translation>
    </message>
</context>
<context>
    <name>llamafit::MainWindow</name>
    <message>
        <source>LlamaFit</source>
        <translation>LlamaFit</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>計画</translation>
    </message>
    <message>
        <source>Live</source>
        <translation>ライブ</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>モデル</translation>
    </message>
    <message>
        <source>Machine</source>
        <translation>マシン</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>設定</translation>
    </message>
    <message>
        <source>Advice</source>
        <translation>アドバイス</translation>
    </message>
    <message>
        <source>Launch</source>
        <translation>起動</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>ファイル(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open GGUF model...</source>
        <translation>GGUF モデルを開く(&amp;O)...</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>終了(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>表示(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>テーマ(&amp;T)</translation>
    </message>
    <message>
        <source>System</source>
        <translation>システム</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>ライト</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>ダーク</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>言語(&amp;L)</translation>
    </message>
    <message>
        <source>The language changes the next time LlamaFit starts.</source>
        <translation>言語は LlamaFit の次回起動時に切り替わります。</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>ヘルプ(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About LlamaFit</source>
        <translation>LlamaFit について(&amp;A)</translation>
    </message>
    <message>
        <source>Cannot open %1: %2</source>
        <translation>%1 を開けません: %2</translation>
    </message>
    <message>
        <source>%1 — LlamaFit</source>
        <translation>%1 — LlamaFit</translation>
    </message>
    <message>
        <source>Open GGUF model</source>
        <translation>GGUF モデルを開く</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation>GGUF モデル (*.gguf);;すべてのファイル (*)</translation>
    </message>
    <message>
        <source>&amp;Server</source>
        <translation>サーバー(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Launch llama-server</source>
        <translation>llama-server を起動(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Stop llama-server</source>
        <translation>llama-server を停止(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Find model</source>
        <translation>モデルを検索(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Plan</source>
        <translation>計画(&amp;P)</translation>
    </message>
    <message>
        <source>Li&amp;ve</source>
        <translation>ライブ(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Benchmark with llama-bench...</source>
        <translation>llama-bench でベンチマーク(&amp;B)...</translation>
    </message>
    <message>
        <source>Model &amp;set...</source>
        <translation>モデルセット(&amp;S)...</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>クラスター</translation>
    </message>
    <message>
        <source>&amp;Get models from Hugging Face...</source>
        <translation>Hugging Face からモデルを入手(&amp;G)...</translation>
    </message>
    <message>
        <source>llama-server &amp;builds...</source>
        <translation>llama-server のビルド(&amp;B)...</translation>
    </message>
</context>
<context>
    <name>llamafit::MemoryChart</name>
    <message>
        <source>Whether llama-server&apos;s memory fits every pool of this machine, with the safety margin (--fit-target)</source>
        <translation>llama-server のメモリが、安全マージン (--fit-target) を含めてこのマシンの各プールに収まるか</translation>
    </message>
    <message>
        <source>Reserved (OS, desktop)</source>
        <translation>予約済み (OS、デスクトップ)</translation>
    </message>
    <message>
        <source>Other (page cache, shared memory)</source>
        <translation>その他 (ページキャッシュ、共有メモリ)</translation>
    </message>
    <message>
        <source>Run-time growth (up to)</source>
        <translation>実行中の増加 (最大)</translation>
    </message>
    <message>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <source>The estimate could not be placed on this machine&apos;s memory.</source>
        <translation>推定値をこのマシンのメモリに割り当てられませんでした。</translation>
    </message>
    <message>
        <source>llama-server would refuse these settings:
%1</source>
        <translation>llama-server はこの設定を拒否します:
%1</translation>
    </message>
    <message>
        <source>Refused settings</source>
        <translation>拒否された設定</translation>
    </message>
    <message>
        <source>driver: %1 free</source>
        <translation>ドライバ: 空き %1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Overall: %1 (%2)</source>
        <translation>全体: %1 (%2)</translation>
    </message>
    <message>
        <source>; </source>
        <translation>、</translation>
    </message>
    <message>
        <source>The driver reports %1 free, more than the %2 BIOS carve-out: llama.cpp adds up every memory heap of an integrated GPU, including shared GPU memory that is system RAM the OS also uses. The line is the carve-out, which is what the GPU really has.</source>
        <translation>ドライバは空きを %1 と報告していますが、BIOS の割り当て %2 より多くなっています: llama.cpp は内蔵 GPU のすべてのメモリヒープを合算し、OS も使うシステム RAM である共有 GPU メモリまで含めるためです。線は BIOS の割り当てで、GPU が実際に持つ量です。</translation>
    </message>
    <message>
        <source>Without weights</source>
        <translation>重みを除く</translation>
    </message>
    <message>
        <source>Draw the bars without the weights and the reserved memory, at their own scale: the KV cache, recurrent state, compute and output buffers the settings change</source>
        <translation>重みと予約済みメモリを除いたバーを独自の目盛りで表示します：設定で変わる KV キャッシュ、再帰状態、計算バッファ、出力バッファ</translation>
    </message>
    <message>
        <source>this machine</source>
        <translation>このマシン</translation>
    </message>
    <message>
        <source>RPC server</source>
        <translation>RPC サーバー</translation>
    </message>
</context>
<context>
    <name>llamafit::MemoryTimeChart</name>
    <message>
        <source>Memory while llama-server runs: its resident memory, the host&apos;s available memory and each GPU&apos;s memory in use, against the predicted totals (dashed) and the pool limits</source>
        <translation>llama-server 動作中のメモリ: 常駐メモリ、ホストの利用可能メモリ、各 GPU の使用中メモリを、予測合計 (破線) とプールの上限と比較します</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <source>llama-server resident memory</source>
        <translation>llama-server の常駐メモリ</translation>
    </message>
    <message>
        <source>host memory available</source>
        <translation>ホストの利用可能メモリ</translation>
    </message>
</context>
<context>
    <name>llamafit::ModelLibraryModel</name>
    <message>
        <source>%1 / %2 active</source>
        <translation>%1 / アクティブ %2</translation>
    </message>
    <message>
        <source>OK</source>
        <translation>OK</translation>
    </message>
    <message>
        <source>OK, with vision projector</source>
        <translation>OK (ビジョンプロジェクタ付き)</translation>
    </message>
    <message>
        <source>Cannot be read: %1 (%2)</source>
        <translation>読み込めません: %1 (%2)</translation>
    </message>
    <message>
        <source>Built-in model card %1: sized from its metadata, no download needed</source>
        <translation>組み込みモデルカード %1: メタデータからサイズを計算、ダウンロード不要</translation>
    </message>
    <message>
        <source>Split model, parts: %1</source>
        <translation>分割モデル、パート: %1</translation>
    </message>
    <message>
        <source>Vision projector (--mmproj): %1</source>
        <translation>ビジョンプロジェクタ (--mmproj): %1</translation>
    </message>
    <message>
        <source>Parameters in the file; for a mixture of experts also those used per token</source>
        <translation>ファイル内のパラメータ数。MoE ではトークンあたりに使われる数も表示</translation>
    </message>
    <message>
        <source>general.file_type as llama-quantize names it, else the weight type with the most bytes</source>
        <translation>llama-quantize の呼び名での general.file_type、なければ最もバイト数の多い重みの型</translation>
    </message>
    <message>
        <source>Training context in tokens: the default of -c / --ctx-size 0</source>
        <translation>学習時のコンテキスト長 (トークン): -c / --ctx-size 0 の既定値</translation>
    </message>
    <message>
        <source>Compiled into LlamaFit</source>
        <translation>LlamaFit に組み込み</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名前</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>アーキテクチャ</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>パラメータ数</translation>
    </message>
    <message>
        <source>Quantisation</source>
        <translation>量子化</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>サイズ</translation>
    </message>
    <message>
        <source>Training context</source>
        <translation>学習時コンテキスト長</translation>
    </message>
    <message>
        <source>Badges</source>
        <translation>バッジ</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状態</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>ソース</translation>
    </message>
    <message>
        <source>RS (hybrid)</source>
        <translation>RS (hybrid)</translation>
    </message>
    <message>
        <source>RS</source>
        <translation>RS</translation>
    </message>
    <message>
        <source>SWA</source>
        <translation>SWA</translation>
    </message>
    <message>
        <source>MLA</source>
        <translation>MLA</translation>
    </message>
    <message>
        <source>MoE</source>
        <translation>MoE</translation>
    </message>
    <message>
        <source>built-in card</source>
        <translation>組み込みカード</translation>
    </message>
    <message>
        <source>Hugging Face cache</source>
        <translation>Hugging Face キャッシュ</translation>
    </message>
    <message>
        <source>llama.cpp cache</source>
        <translation>llama.cpp キャッシュ</translation>
    </message>
    <message>
        <source>LM Studio</source>
        <translation>LM Studio</translation>
    </message>
    <message>
        <source>Ollama</source>
        <translation>Ollama</translation>
    </message>
    <message>
        <source>Folder %1</source>
        <translation>フォルダ %1</translation>
    </message>
    <message>
        <source>%1 B</source>
        <translation>%1 B</translation>
    </message>
    <message>
        <source>%1 M</source>
        <translation>%1 M</translation>
    </message>
    <message>
        <source>%1 K</source>
        <translation>%1 K</translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message>
        <source>%1 KiB</source>
        <translation>%1 KiB</translation>
    </message>
    <message>
        <source>RS: recurrent state buffer (hybrid: with attention layers); SWA: sliding-window attention; MLA: multi-head latent attention; MoE: mixture of experts; MTP: a NextN block for multi-token prediction (choose &quot;with MTP drafting&quot; from the row&apos;s menu)</source>
        <translation>RS: リカレント状態バッファ (hybrid: アテンション層あり)、SWA: スライディングウィンドウアテンション、MLA: マルチヘッド潜在アテンション、MoE: 専門家混合、MTP: 複数トークン予測用の NextN ブロック (行のメニューで「MTP ドラフトで選択」を選べます)</translation>
    </message>
    <message>
        <source>MTP</source>
        <translation>MTP</translation>
    </message>
</context>
<context>
    <name>llamafit::ModelPickerPanel</name>
    <message>
        <source>Filter models (name, architecture, quantisation, badges, folder)</source>
        <translation>モデルを絞り込み (名前、アーキテクチャ、量子化、バッジ、フォルダ)</translation>
    </message>
    <message>
        <source>Shows only the models whose columns contain this text; Down moves into the list</source>
        <translation>この文字列を含む列があるモデルだけを表示します。↓キーで一覧に移動します</translation>
    </message>
    <message>
        <source>The model passed to llama-server as -m / --model; double click or Enter chooses it</source>
        <translation>-m / --model として llama-server に渡すモデル。ダブルクリックか Enter で選択します</translation>
    </message>
    <message>
        <source>Add folder...</source>
        <translation>フォルダを追加...</translation>
    </message>
    <message>
        <source>Adds a folder of GGUF files to the library and scans it</source>
        <translation>GGUF ファイルのフォルダをライブラリに追加してスキャンします</translation>
    </message>
    <message>
        <source>Remove folder</source>
        <translation>フォルダを削除</translation>
    </message>
    <message>
        <source>Removes one of the folders you added from the library</source>
        <translation>追加したフォルダの一つをライブラリから外します</translation>
    </message>
    <message>
        <source>Rescan</source>
        <translation>再スキャン</translation>
    </message>
    <message>
        <source>Scans the Hugging Face, llama.cpp, LM Studio and Ollama folders and yours again</source>
        <translation>Hugging Face、llama.cpp、LM Studio、Ollama のフォルダと追加したフォルダを再スキャンします</translation>
    </message>
    <message>
        <source>GGUF files read so far, of those found</source>
        <translation>見つかったうち読み込み済みの GGUF ファイル</translation>
    </message>
    <message>
        <source>%v of %m files</source>
        <translation>%v / %m ファイル</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>キャンセル</translation>
    </message>
    <message>
        <source>Stops the scan; the models found so far stay listed</source>
        <translation>スキャンを止めます。それまでに見つかったモデルは一覧に残ります</translation>
    </message>
    <message>
        <source>What the last library scan found</source>
        <translation>前回のライブラリスキャンの結果</translation>
    </message>
    <message>
        <source>Built-in model cards: %1. No folder scanned yet.</source>
        <translation>組み込みモデルカード: %1。まだフォルダをスキャンしていません。</translation>
    </message>
    <message>
        <source>Scanning folders: %1</source>
        <translation>フォルダをスキャン中: %1</translation>
    </message>
    <message>
        <source>Add a folder of GGUF models</source>
        <translation>GGUF モデルのフォルダを追加</translation>
    </message>
    <message>
        <source>Stop listing the models in %1</source>
        <translation>%1 のモデルを一覧に表示しない</translation>
    </message>
    <message>
        <source>Scanning: %1</source>
        <translation>スキャン中: %1</translation>
    </message>
    <message>
        <source>Scan cancelled. Models found before it stopped: %1, unreadable: %2</source>
        <translation>スキャンをキャンセルしました。停止前に見つかったモデル: %1、読み込めないもの: %2</translation>
    </message>
    <message>
        <source>Scan finished. Models found: %1, unreadable: %2</source>
        <translation>スキャン完了。見つかったモデル: %1、読み込めないもの: %2</translation>
    </message>
    <message>
        <source>Choose with MTP drafting (--spec-type draft-mtp)</source>
        <translation>MTP ドラフトで選択 (--spec-type draft-mtp)</translation>
    </message>
    <message>
        <source>The model drafts tokens with its own NextN (MTP) block: llama-server loads the block and a second, draft context</source>
        <translation>モデル自身の NextN (MTP) ブロックでトークンをドラフトします: llama-server はそのブロックと 2 つ目のドラフト用コンテキストを読み込みます</translation>
    </message>
    <message>
        <source>No vision projector (mmproj) was found with this model</source>
        <translation>このモデルと一緒にビジョンプロジェクター (mmproj) は見つかりませんでした</translation>
    </message>
    <message>
        <source>Loads %1 with --mmproj: its weights and its image warm-up buffer join the estimate</source>
        <translation>%1 を --mmproj で読み込みます: その重みと画像ウォームアップ用バッファーが見積もりに加わります</translation>
    </message>
    <message>
        <source>Choose with vision (--mmproj)</source>
        <translation>ビジョン付きで選択 (--mmproj)</translation>
    </message>
</context>
<context>
    <name>llamafit::ModelSetChart</name>
    <message>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <source>reserved (OS, desktop)</source>
        <translation>予約済み (OS、デスクトップ)</translation>
    </message>
    <message>
        <source>pool size</source>
        <translation>プールのサイズ</translation>
    </message>
</context>
<context>
    <name>llamafit::ModelSetDialog</name>
    <message>
        <source>Open set file...</source>
        <translation>セットファイルを開く...</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>モデル</translation>
    </message>
    <message>
        <source>Alone</source>
        <translation>単独</translation>
    </message>
    <message>
        <source>Flags</source>
        <translation>フラグ</translation>
    </message>
    <message>
        <source>Together</source>
        <translation>同時</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>判定</translation>
    </message>
    <message>
        <source>Save router preset (INI)...</source>
        <translation>ルーターのプリセットを保存 (INI)...</translation>
    </message>
    <message>
        <source>Save llama-swap config...</source>
        <translation>llama-swap の設定を保存...</translation>
    </message>
    <message>
        <source>Model set</source>
        <translation>モデルセット</translation>
    </message>
    <message>
        <source>No set open. A set file lists models, each with its llama-server flags (see docs/cli.md, &apos;plan --set&apos;).</source>
        <translation>セットが開かれていません。セットファイルは、それぞれの llama-server フラグ付きでモデルを列挙します (docs/cli.md の「plan --set」を参照)。</translation>
    </message>
    <message>
        <source>Machine: %1 (named by the set)</source>
        <translation>マシン: %1 (セットで指定)</translation>
    </message>
    <message>
        <source>Machine: %1 (the one the main window plans for)</source>
        <translation>マシン: %1 (メインウィンドウで計画中のもの)</translation>
    </message>
    <message>
        <source>Saved %1.</source>
        <translation>%1 を保存しました。</translation>
    </message>
    <message>
        <source>Open model set</source>
        <translation>モデルセットを開く</translation>
    </message>
    <message>
        <source>Model sets (*.json);;All files (*)</source>
        <translation>モデルセット (*.json);;すべてのファイル (*)</translation>
    </message>
    <message>
        <source>Save router preset</source>
        <translation>ルーターのプリセットを保存</translation>
    </message>
    <message>
        <source>Save llama-swap config</source>
        <translation>llama-swap の設定を保存</translation>
    </message>
    <message>
        <source>Preset INI (*.ini)</source>
        <translation>プリセット INI (*.ini)</translation>
    </message>
    <message>
        <source>llama-swap config (*.yaml *.yml)</source>
        <translation>llama-swap の設定 (*.yaml *.yml)</translation>
    </message>
    <message>
        <source>All %1 together: %2. </source>
        <translation>%1 個すべてを同時に: %2。</translation>
    </message>
    <message>
        <source>Not every model fits alone: no --models-max is safe.</source>
        <translation>単独では収まらないモデルがあります: 安全な --models-max はありません。</translation>
    </message>
    <message>
        <source>Safe --models-max: %1 (every %1 of the %2 models fit together).</source>
        <translation>安全な --models-max: %1 (%2 個のモデルのうち、どの %1 個も同時に収まります)。</translation>
    </message>
    <message>
        <source> Right after load any %1 fit: their prompt caches (--cache-ram) and checkpoints may grow beyond the memory.</source>
        <translation> 読み込み直後はどの %1 個も収まりますが、プロンプトキャッシュ (--cache-ram) とチェックポイントが増えるとメモリを超えることがあります。</translation>
    </message>
</context>
<context>
    <name>llamafit::ProjectionCrossCheck</name>
    <message>
        <source>No llama-fit-params found next to llama-server: llama.cpp&apos;s own projection is not checked.</source>
        <translation>llama-server と同じ場所に llama-fit-params がありません: llama.cpp 自身の見積もりとは照合しません。</translation>
    </message>
    <message>
        <source>A built-in card has no file for llama.cpp to measure.</source>
        <translation>組み込みカードには llama.cpp が測定するファイルがありません。</translation>
    </message>
    <message>
        <source>The settings are refused; nothing to compare.</source>
        <translation>設定が拒否されるため、比較するものがありません。</translation>
    </message>
    <message>
        <source>Asking llama.cpp for its projection...</source>
        <translation>llama.cpp に見積もりを問い合わせ中...</translation>
    </message>
    <message>
        <source>%1 did not start: %2</source>
        <translation>%1 が起動しませんでした: %2</translation>
    </message>
    <message>
        <source>llama.cpp is measuring these settings...</source>
        <translation>llama.cpp がこの設定を測定中...</translation>
    </message>
    <message>
        <source>llama-fit-params exited with %1:
%2</source>
        <translation>llama-fit-params が %1 で終了しました:
%2</translation>
    </message>
    <message>
        <source>llama-fit-params printed no memory breakdown:
%1</source>
        <translation>llama-fit-params がメモリの内訳を出力しませんでした:
%1</translation>
    </message>
    <message>
        <source>no GPU</source>
        <translation>GPU なし</translation>
    </message>
    <message>
        <source>llama.cpp on this computer sees %1, the plan is for %2: not compared.</source>
        <translation>このコンピューターの llama.cpp には %1 が見えていますが、計画は %2 向けです: 比較しません。</translation>
    </message>
</context>
<context>
    <name>llamafit::RpcCommandsDialog</name>
    <message>
        <source>Listen on all addresses (0.0.0.0)</source>
        <translation>すべてのアドレスで待ち受ける (0.0.0.0)</translation>
    </message>
    <message>
        <source>ggml-rpc-server on another host</source>
        <translation>別のホストの ggml-rpc-server</translation>
    </message>
    <message>
        <source>Shell (sh)</source>
        <translation>シェル (sh)</translation>
    </message>
    <message>
        <source>systemd unit</source>
        <translation>systemd ユニット</translation>
    </message>
    <message>
        <source>Windows batch file (.bat)</source>
        <translation>Windows バッチファイル (.bat)</translation>
    </message>
    <message>
        <source>The ggml-rpc-server on that host: a path, or a name on its PATH</source>
        <translation>そのホストの ggml-rpc-server: パス、または PATH 上の名前</translation>
    </message>
    <message>
        <source>Needed for a llama-server on another machine to reach it; the server has no authentication</source>
        <translation>別のマシンの llama-server から接続するのに必要です。サーバーには認証がありません</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>コピー</translation>
    </message>
    <message>
        <source>Save...</source>
        <translation>保存...</translation>
    </message>
    <message>
        <source>Format:</source>
        <translation>形式:</translation>
    </message>
    <message>
        <source>Program:</source>
        <translation>プログラム:</translation>
    </message>
    <message>
        <source>Save the commands</source>
        <translation>コマンドを保存</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>%1 に書き込めませんでした: %2</translation>
    </message>
</context>
<context>
    <name>llamafit::RpcServeGroup</name>
    <message>
        <source>Allow access from the network</source>
        <translation>ネットワークからのアクセスを許可</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>開始</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Run ggml-rpc-server here, so a llama-server (on another host, or this one) can put layers on this machine&apos;s devices with --rpc</source>
        <translation>ここで ggml-rpc-server を実行し、(別のホストまたはこのホストの) llama-server が --rpc でこのマシンのデバイスにレイヤーを置けるようにします</translation>
    </message>
    <message>
        <source>the server&apos;s choice</source>
        <translation>サーバーに任せる</translation>
    </message>
    <message>
        <source>-d: devices to serve, comma-separated (CPU, Vulkan0, CUDA0)</source>
        <translation>-d: 提供するデバイス、カンマ区切り (CPU, Vulkan0, CUDA0)</translation>
    </message>
    <message>
        <source>Listen on 0.0.0.0 instead of 127.0.0.1</source>
        <translation>127.0.0.1 ではなく 0.0.0.0 で待ち受けます</translation>
    </message>
    <message>
        <source>Port:</source>
        <translation>ポート:</translation>
    </message>
    <message>
        <source>Devices (-d):</source>
        <translation>デバイス (-d):</translation>
    </message>
    <message>
        <source>Not serving.</source>
        <translation>提供していません。</translation>
    </message>
    <message>
        <source>Starting...</source>
        <translation>起動中...</translation>
    </message>
    <message>
        <source>%1 (%2 MiB free)</source>
        <translation>%1 (空き %2 MiB)</translation>
    </message>
    <message>
        <source>Listening on %1:%2: %3</source>
        <translation>%1:%2 で待ち受け中: %3</translation>
    </message>
    <message>
        <source>Stopping...</source>
        <translation>停止中...</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失敗: %1</translation>
    </message>
</context>
<context>
    <name>llamafit::SettingsPanel</name>
    <message>
        <source>q8_0 KV is close to f16 for most tasks. q4_0 suits short Q&amp;A, summaries, classification and short code completion, but degrades maths, exact numbers and long-range lookups (needle in a haystack). K and V differ: keys vary per channel, values per token, so keep K at least as precise as V.</source>
        <translation>q8_0 の KV はほとんどのタスクで f16 に近い精度です。q4_0 は短い Q&amp;A、要約、分類、短いコード補完には向きますが、数学、正確な数値、長距離の参照 (needle in a haystack) は劣化します。K と V は性質が違い、キーはチャネルごと、値はトークンごとにばらつくため、K は V 以上の精度にしてください。</translation>
    </message>
    <message>
        <source>llama.cpp stores q8_0 as %1 bytes per %2 values (%3 bytes/value) and q4_0 as %4 bytes per %5 (%6): not ½ and ¼ of f16 as the seed&apos;s rule of thumb says.</source>
        <translation>llama.cpp は q8_0 を %2 値あたり %1 バイト (%3 バイト/値)、q4_0 を %5 値あたり %4 バイト (%6) で保存します: 元記事の目安のように f16 のちょうど ½ や ¼ ではありません。</translation>
    </message>
    <message>
        <source>-c / --ctx-size: context tokens, all slots together (llama.cpp pads it to a multiple of 256)</source>
        <translation>-c / --ctx-size: コンテキスト長 (トークン、全スロット合計。llama.cpp が 256 の倍数に切り上げ)</translation>
    </message>
    <message>
        <source>-c / --ctx-size: the exact context in tokens</source>
        <translation>-c / --ctx-size: 正確なコンテキスト長 (トークン)</translation>
    </message>
    <message>
        <source>-np / --parallel: server slots (concurrent requests); auto = 4 slots sharing one unified KV cache</source>
        <translation>-np / --parallel: サーバーのスロット数 (同時リクエスト数)。auto = 4 スロットで統合 KVキャッシュを共有</translation>
    </message>
    <message>
        <source>auto (4, unified)</source>
        <translation>auto (4、統合)</translation>
    </message>
    <message>
        <source>-ctk / --cache-type-k: the K cache type</source>
        <translation>-ctk / --cache-type-k: K キャッシュの型</translation>
    </message>
    <message>
        <source>-ctv / --cache-type-v: the V cache type (quantized types need flash attention)</source>
        <translation>-ctv / --cache-type-v: V キャッシュの型 (量子化型には Flash Attention が必要)</translation>
    </message>
    <message>
        <source>-ngl / --n-gpu-layers: layers on the GPU, the output layer counted first</source>
        <translation>-ngl / --n-gpu-layers: GPU に載せるレイヤー数 (出力層から先に数える)</translation>
    </message>
    <message>
        <source>all</source>
        <translation>すべて</translation>
    </message>
    <message>
        <source>-ngl all: every layer and the output layer on the GPU</source>
        <translation>-ngl all: すべてのレイヤーと出力層を GPU に載せる</translation>
    </message>
    <message>
        <source>-b / --batch-size: logical batch in tokens</source>
        <translation>-b / --batch-size: 論理バッチサイズ (トークン)</translation>
    </message>
    <message>
        <source>-ub / --ubatch-size: physical batch in tokens; the compute buffer grows with it</source>
        <translation>-ub / --ubatch-size: 物理バッチサイズ (トークン)。計算バッファはこれに比例して増えます</translation>
    </message>
    <message>
        <source>auto</source>
        <translation>auto</translation>
    </message>
    <message>
        <source>on</source>
        <translation>on</translation>
    </message>
    <message>
        <source>off</source>
        <translation>off</translation>
    </message>
    <message>
        <source>-fa / --flash-attn on|off|auto</source>
        <translation>-fa / --flash-attn on|off|auto</translation>
    </message>
    <message>
        <source>default</source>
        <translation>既定</translation>
    </message>
    <message>
        <source>-kvu / --kv-unified, -no-kvu / --no-kv-unified: one KV buffer shared by all slots; default = unified only with -np auto</source>
        <translation>-kvu / --kv-unified, -no-kvu / --no-kv-unified: 全スロットで一つの KV バッファを共有。既定では -np auto のときだけ統合</translation>
    </message>
    <message>
        <source>full-size SWA cache</source>
        <translation>フルサイズの SWA キャッシュ</translation>
    </message>
    <message>
        <source>--swa-full: sliding-window layers keep the whole context</source>
        <translation>--swa-full: スライディングウィンドウ層もコンテキスト全体を保持</translation>
    </message>
    <message>
        <source>mmap</source>
        <translation>mmap</translation>
    </message>
    <message>
        <source>none (copy)</source>
        <translation>none (コピー)</translation>
    </message>
    <message>
        <source>-lm / --load-mode auto|mmap|none (none replaces the old --no-mmap)</source>
        <translation>-lm / --load-mode auto|mmap|none (none は旧 --no-mmap の代わり)</translation>
    </message>
    <message>
        <source>e.g. -t 8 --alias local -ot exps=CPU</source>
        <translation>例: -t 8 --alias local -ot exps=CPU</translation>
    </message>
    <message>
        <source>Other llama-server flags, quoted as in a shell. Flags that change memory (-ot, -ts, -cmoe, ...) are applied to the estimate; the rest are passed to the launch.</source>
        <translation>その他の llama-server フラグ (シェルと同じ書き方で引用)。メモリに影響するフラグ (-ot, -ts, -cmoe など) は推定に反映し、それ以外は起動時にそのまま渡します。</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>コンテキスト長</translation>
    </message>
    <message>
        <source>Slots</source>
        <translation>スロット数</translation>
    </message>
    <message>
        <source>GPU layers</source>
        <translation>GPU レイヤー数</translation>
    </message>
    <message>
        <source>Flash attention</source>
        <translation>Flash Attention</translation>
    </message>
    <message>
        <source>Unified KV</source>
        <translation>統合 KV</translation>
    </message>
    <message>
        <source>Load mode</source>
        <translation>読み込みモード</translation>
    </message>
    <message>
        <source>Extra flags</source>
        <translation>追加フラグ</translation>
    </message>
    <message>
        <source>Not applied: %1</source>
        <translation>未適用: %1</translation>
    </message>
    <message>
        <source>Applied to the estimate: %1</source>
        <translation>推定に反映: %1</translation>
    </message>
    <message>
        <source>Passed to llama-server: %1</source>
        <translation>llama-server に渡す: %1</translation>
    </message>
    <message>
        <source>Not in the estimate: %1</source>
        <translation>推定に含まれない: %1</translation>
    </message>
    <message>
        <source>This machine has no GPU: every layer runs on the CPU and -ngl has no effect.</source>
        <translation>このマシンには GPU がありません: すべてのレイヤーが CPU で動き、-ngl は効果がありません。</translation>
    </message>
    <message>
        <source>llama-server would refuse these settings: %1</source>
        <translation>llama-server はこの設定を拒否します: %1</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>Refused: %1</source>
        <translation>拒否: %1</translation>
    </message>
    <message>
        <source>q8_0 ≈ f16 for most tasks; q4_0 for short ones (hover for why)</source>
        <translation>q8_0 はほとんどの用途で f16 と同等、q4_0 は短い用途向け（理由はホバーで表示）</translation>
    </message>
    <message>
        <source>Left unset, llama-server would refuse these settings.</source>
        <translation>未指定の場合、llama-server はこの設定を拒否します。</translation>
    </message>
    <message>
        <source>Left unset, llama-server takes the training context, -c %1 (-fit off).</source>
        <translation>未指定の場合、llama-server は学習時のコンテキスト -c %1 を使います（-fit off）。</translation>
    </message>
    <message>
        <source>Left unset, llama-server will pick -c %1.</source>
        <translation>未指定の場合、llama-server は -c %1 を選びます。</translation>
    </message>
    <message>
        <source>Left unset, llama-server&apos;s fit gives up (%1) and runs with -c %2.</source>
        <translation>未指定の場合、llama-server の fit は断念し（%1）、-c %2 で動作します。</translation>
    </message>
    <message>
        <source>Its fit also sets -ngl %1.</source>
        <translation>その fit は -ngl %1 も設定します。</translation>
    </message>
    <message>
        <source>MTP drafting (NextN block)</source>
        <translation>MTP ドラフト (NextN ブロック)</translation>
    </message>
    <message>
        <source>--spec-type draft-mtp: speculative decoding with the model&apos;s own NextN (MTP) block. llama-server then loads the block&apos;s weights, builds a second, draft context (its KV cache, logits and compute buffer) and keeps --spec-draft-n-max more recurrent-state rows per slot; without it the block&apos;s weights are skipped. Shown for files with a NextN block.</source>
        <translation>--spec-type draft-mtp: モデル自身の NextN (MTP) ブロックによる投機的デコード。llama-server はブロックの重みを読み込み、2 つ目のドラフト用コンテキスト (KVキャッシュ、ロジット、計算バッファ) を作り、スロットごとにリカレント状態の行を --spec-draft-n-max 行多く確保します。オフのときはブロックの重みを読み込みません。NextN ブロックを持つファイルでだけ表示されます。</translation>
    </message>
    <message>
        <source>K / V cache</source>
        <translation>K / V キャッシュ</translation>
    </message>
    <message>
        <source>Batch / ubatch</source>
        <translation>バッチ / ubatch</translation>
    </message>
</context>
<context>
    <name>llamafit::SlotFillTable</name>
    <message>
        <source>Slot</source>
        <translation>スロット</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状態</translation>
    </message>
    <message>
        <source>Context tokens</source>
        <translation>コンテキストのトークン数</translation>
    </message>
    <message>
        <source>Fill</source>
        <translation>使用率</translation>
    </message>
    <message>
        <source>Each slot (-np / --parallel) and how full its context (-c / --ctx-size divided by the slots) is, from llama-server&apos;s /slots</source>
        <translation>各スロット (-np / --parallel) とそのコンテキスト (-c / --ctx-size をスロット数で割った分) の埋まり具合。llama-server の /slots から取得</translation>
    </message>
    <message>
        <source>processing</source>
        <translation>処理中</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>待機中</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1 of %2 tokens in slot %3&apos;s context</source>
        <translation>スロット %3 のコンテキスト %2 トークン中 %1 トークン</translation>
    </message>
</context>
<context>
    <name>llamafit::SweepChart</name>
    <message>
        <source>Total memory against context per K/V cache type pair (-ctk / -ctv). Click a point or a legend entry to set -c / --ctx-size and the cache types.</source>
        <translation>K/V キャッシュ型の組 (-ctk / -ctv) ごとの、コンテキスト長に対する総メモリ。点か凡例をクリックすると -c / --ctx-size とキャッシュ型を設定します。</translation>
    </message>
    <message>
        <source>Context (tokens, -c)</source>
        <translation>コンテキスト長 (トークン, -c)</translation>
    </message>
    <message>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>%1: does not fit</source>
        <translation>%1: 収まらない</translation>
    </message>
    <message>
        <source>Limit of %1: %2</source>
        <translation>%1 の上限: %2</translation>
    </message>
    <message>
        <source>Memory of %1 (the GPU the layers go to); the markers are the largest context that fits its budget.</source>
        <translation>%1 のメモリ (レイヤーを載せる GPU)。マーカーは予算内に収まる最大のコンテキスト長です。</translation>
    </message>
    <message>
        <source>Host memory (no layers on a GPU); the markers are the largest context that fits its budget.</source>
        <translation>ホストメモリ (GPU にレイヤーなし)。マーカーは予算内に収まる最大のコンテキスト長です。</translation>
    </message>
    <message>
        <source>%1 left out: llama-server refuses it for this model (%2)</source>
        <translation>%1 を除外: llama-server はこのモデルでは拒否します (%2)</translation>
    </message>
    <message>
        <source>Memory of %1 (of the devices the layers are split over, the one with the least room left); the markers are the largest context that fits every device.</source>
        <translation>%1 のメモリ (レイヤーを分割する各デバイスのうち、残りの余裕が最も少ないもの)。マーカーは、すべてのデバイスに収まる最大のコンテキストです。</translation>
    </message>
</context>
<context>
    <name>llamafit::TensorSplitBar</name>
    <message>
        <source>How llama.cpp splits the layers over the devices (-ts), in its device order: the RPC hosts first, then this machine&apos;s GPUs. Drag a handle, or focus the bar and use the arrow keys (Tab moves to the next handle).</source>
        <translation>llama.cpp がレイヤーをデバイスに分割する割合 (-ts)。llama.cpp のデバイス順で、先に RPC ホスト、次にこのマシンの GPU。ハンドルをドラッグするか、バーにフォーカスして矢印キーで動かします (Tab で次のハンドルへ)。</translation>
    </message>
    <message>
        <source>Tensor split (-ts)</source>
        <translation>テンソル分割 (-ts)</translation>
    </message>
    <message>
        <source>No GPU and no RPC host: nothing to split</source>
        <translation>GPU も RPC ホストもありません: 分割するものがありません</translation>
    </message>
</context>
<context>
    <name>llamafit::ThroughputChart</name>
    <message>
        <source>Tokens per second: all slots together and each slot (-np / --parallel), measured from /slots and /metrics (--metrics) between two samples</source>
        <translation>1 秒あたりのトークン数: 全スロット合計とスロットごと (-np / --parallel)。/slots と /metrics (--metrics) の 2 回のサンプル間で測定</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>トークン/s</translation>
    </message>
    <message>
        <source>decode, all slots</source>
        <translation>デコード (全スロット)</translation>
    </message>
    <message>
        <source>prompt (finished requests)</source>
        <translation>プロンプト (完了したリクエスト)</translation>
    </message>
    <message>
        <source>slot %1</source>
        <translation>スロット %1</translation>
    </message>
</context>
</TS>
