#!/usr/bin/env bash
# A 70B model on one 8-GPU node with vLLM's OpenAI-compatible server, then harness-normalize
# generating, scoring and computing log-likelihoods against it.  Run the server where the GPUs
# are; run the client anywhere that can reach it (the weights never move).
set -euo pipefail
MODEL=meta-llama/Llama-3.1-70B-Instruct     # or a local folder with the weights

# 1. the server: tensor parallel over 8 GPUs (use --pipeline-parallel-size for several nodes)
vllm serve "$MODEL" --tensor-parallel-size 8 --dtype bfloat16 --max-model-len 8192 \
    --host 0.0.0.0 --port 8000 --served-model-name llama-70b &
until curl -sf http://127.0.0.1:8000/v1/models >/dev/null; do sleep 10; done

# 2. generation: 5 seeded samples per prompt, 64 requests in flight, retries on 429/5xx
normalize generate --backend openai --base-url http://127.0.0.1:8000/v1 --model llama-70b \
    --endpoint chat --concurrency 64 -n 5 --temperature 0.7 --seed 0 --max-new-tokens 512 \
    --revision "$MODEL@main" --cache out/cache.sqlite examples/serving/prompts.jsonl -o out/pred.jsonl
normalize score out/pred.jsonl --aggregate vote

# 3. log-likelihoods (acc / acc_norm / PMI): the server's prompt log-probabilities with the
#    local scorer's token-boundary rules; --tokenizer is a local copy of the model's tokenizer
normalize loglik --backend openai --base-url http://127.0.0.1:8000/v1 --model llama-70b \
    --tokenizer /models/llama-70b-tokenizer --concurrency 64 data/mc.jsonl
