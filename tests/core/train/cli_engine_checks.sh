#!/bin/sh
# CTest checks of the engine subcommands of accellab-cli (train, bench, models, datasets).
# Usage: cli_engine_checks.sh PATH-TO-accellab-cli CASE
# Runs on synthetic data (no dataset files needed) and small sizes so each case takes < 2 s.
set -u
cli="$1"
case_name="$2"
. "$(dirname "$0")/../../cli_check_lib.sh"

small="--dataset synthetic --model mlp --batch 32 --limit 256 --test-limit 128 --threads 2 --seed 3"

case "$case_name" in
  models)
    run 0 models
    for id in mlp lenet5 mnist-cnn colab-cnn cifar-cnn resnet20 fasttext imdb-bilstm lstm-textgen resnet50 resnet152 vgg16 xception inception-v3 alexnet; do
      grep -q "^$id " "$tmp/out" || fail "models does not list $id"
    done
    grep -q "^mlp  *669,706 params" "$tmp/out" || fail "mlp's parameter count is not 669,706"
    run 0 models --format json
    grep -q '"id": "resnet50"' "$tmp/out" || fail "models --format json lacks resnet50"
    grep -q '"params": 669706' "$tmp/out" || fail "models --format json lacks mlp's params"
    ;;
  datasets)
    run 0 datasets
    for id in fashion-mnist mnist cifar10 synthetic imagenet tf-flowers imdb nietzsche; do
      grep -q "^$id " "$tmp/out" || fail "datasets does not list $id"
    done
    grep -q "^imagenet  *1,281,167/50,000  *3x224x224" "$tmp/out" || fail "imagenet sizes"
    grep -q "^image-folder  *your folder  *the model's" "$tmp/out" || fail "datasets does not list image-folder"
    grep -q "char-gpt --data-dir PATH" "$tmp/out" || fail "datasets does not say char-gpt trains on your text"
    # Your image folder, listed without decoding (the files need not be images for that).
    mkdir -p "$tmp/pics/cats" "$tmp/pics/dogs"
    for i in 1 2 3 4 5; do echo x >"$tmp/pics/cats/$i.png"; echo x >"$tmp/pics/dogs/$i.JPG"; done
    run 0 datasets --data-dir "$tmp/pics"
    grep -q "2 classes, 10 images (8 training / 2 test" "$tmp/out" || fail "datasets --data-dir: wrong counts"
    run 0 datasets --data-dir "$tmp/pics" --format json
    grep -q '"class_names"' "$tmp/out" || fail "datasets --data-dir --format json lacks class_names"
    bad --data-dir datasets --data-dir "$tmp/pics/cats"
    run 0 datasets --format json
    grep -q '"id": "tf-flowers"' "$tmp/out" || fail "datasets --format json lacks tf-flowers"
    grep -q '"trainable": false' "$tmp/out" || fail "datasets --format json lacks trainable"
    ;;
  train-jsonl)
    run 0 train $small --epochs 2 --format jsonl
    [ "$(wc -l <"$tmp/out")" -eq 2 ] || fail "expected 2 JSON lines (one per epoch)"
    for key in epoch train_loss train_accuracy test_loss test_accuracy host_seconds host_images_per_second; do
      [ "$(grep -c "\"$key\":[0-9.e+-]" "$tmp/out")" -eq 2 ] || fail "a line lacks a numeric $key"
    done
    grep -q '^{"epoch":2,' "$tmp/out" || fail "the second line is not epoch 2"
    ;;
  train-text)
    run 0 train $small --epochs 1 --format text --optimizer sgd --lr 0.05 --momentum 0.9 --nesterov --schedule cosine
    grep -q "^epoch 1/1  train loss [0-9.]* acc [0-9.]*  test loss" "$tmp/out" || fail "no epoch line"
    grep -q "^finished: 1 epoch" "$tmp/out" || fail "no finished line"
    ;;
  train-reproducible)
    run 0 train $small --epochs 2
    grep -o '"t[a-z]*_\(loss\|accuracy\)":[^,]*' "$tmp/out" >"$tmp/a"
    run 0 train $small --epochs 2
    grep -o '"t[a-z]*_\(loss\|accuracy\)":[^,]*' "$tmp/out" >"$tmp/b"
    [ -s "$tmp/a" ] || fail "no losses"
    cmp -s "$tmp/a" "$tmp/b" || fail "same seed and threads gave different losses"
    ;;
  train-diverges)
    run 1 train $small --epochs 1 --optimizer sgd --lr 1e12
    grep -q "diverged" "$tmp/err" || fail "no divergence message"
    ;;
  bench)
    run 0 bench --model lenet5 --batch 16 --threads 2 --steps 3 --warmup 1 --format json
    grep -q '"images_per_second":[1-9]' "$tmp/out" || fail "no positive images_per_second"
    grep -q '"images_per_second_median_step":[1-9]' "$tmp/out" || fail "no median-step figure"
    grep -q '"gflops":[0-9]' "$tmp/out" || fail "no gflops"
    grep -q '"data":"\(fashion-mnist\|synthetic\)"' "$tmp/out" || fail "the data source is not named"
    grep -q '"steps":3,' "$tmp/out" || fail "not 3 timed steps"
    ;;
  bad-arguments)
    bad --model train --model nope
    bad --model train --batch 4
    bad --batch train --model mlp --batch 0
    bad --batch train --model mlp --batch 12x
    bad --lr train --model mlp --lr -0.01
    bad --lr train --model mlp --lr 0
    bad --epochs train --model mlp --epochs many
    bad --dataset train --model mlp --dataset imagenet
    bad --dataset train --model mlp --dataset fashion
    bad --data-dir train --model lenet5 --dataset image-folder
    bad --threads train --model mlp --threads -1
    bad --optimizer train --model mlp --optimizer rmsprop
    bad --momentum train --model mlp --momentum 0.9
    bad --precision train --model mlp --precision fp8
    bad --format train --model mlp --format xml
    bad --limit train --model mlp --limit -3
    bad --bach train --model mlp --bach 3
    bad --steps bench --model mlp --steps abc
    bad --batch bench --model mlp --batch 0
    bad --model bench --model foo
    bad --format models --format xml
    bad --format datasets --format yaml
    bad /nonexistent/accellab train --model mlp --dataset mnist --data-dir /nonexistent/accellab
    # The reliability issue's misleading messages: each names what is really wrong.
    bad "out of range \[0, 1e+15\]" train --model mlp --lr 1e301
    bad "is a file" train --model mlp --dataset mnist --data-dir "$0"
    bad "--seed: 9007199254740993 is out of range \[0, 9007199254740992\]" train --model mlp --seed 9007199254740993
    ;;
  lm)  # char-gpt on a corpus this script writes: a short run, its JSON, and its refusals
    i=0; : > "$tmp/corpus.txt"
    while [ $i -lt 60 ]; do echo "the quick brown fox jumps over the lazy dog $i" >> "$tmp/corpus.txt"; i=$((i + 1)); done
    run 0 train --model char-gpt --data-dir "$tmp/corpus.txt" --steps 4 --eval-every 2 --batch 2 --sample-chars 8 --threads 2 --format jsonl
    [ "$(wc -l < "$tmp/out")" -eq 2 ] || fail "expected 2 evaluation lines"
    for key in '"step":2' '"val_bits_per_char"' '"tokens_per_second"' '"sample"' '"sample_temperature"'; do
      grep -q "$key" "$tmp/out" || fail "no $key in the JSON"
    done
    bad --dataset train --model char-gpt --dataset mnist --steps 1
    bad --data-dir train --model char-gpt --data-dir "$tmp/none" --steps 1
    bad --steps train --model char-gpt --data-dir "$tmp/corpus.txt" --steps 0 ;;
  *)
    fail "unknown case"
    ;;
esac
echo "PASS [$case_name]"
