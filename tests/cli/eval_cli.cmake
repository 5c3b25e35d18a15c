# eval_cli.cmake: checks the attnlab command line without a shell (run with
# cmake -P from the repository root). -DATTNLAB=<path to attnlab> -DWORK=<scratch dir>
#
# What it promises (docs/eval.md): exit status 0 and the response on stdout for a
# valid request; exit status 2 and exactly ONE line on stderr (nothing on stdout)
# for an invalid request or a usage error.
cmake_minimum_required(VERSION 3.20)

set(failures 0)

# run(<name> STATUS <n> [ONE_LINE_STDERR] [EMPTY_STDERR] [STDERR <exact line>]
#     [STDOUT_HAS <text>] [STDIN_TEXT <text> | STDIN_FILE <path>] ARGS <arguments...>)
# (CMake does not split a list inside unbalanced square brackets, so the texts
# given here keep their brackets balanced.)
function(run name)
  cmake_parse_arguments(A "ONE_LINE_STDERR;EMPTY_STDERR" "STATUS;STDERR;STDOUT_HAS;STDIN_TEXT;STDIN_FILE" "ARGS" ${ARGN})
  set(input_args "")
  if(DEFINED A_STDIN_FILE)
    set(input_args INPUT_FILE "${A_STDIN_FILE}")
  endif()
  if(DEFINED A_STDIN_TEXT)
    file(WRITE "${WORK}/eval_cli_stdin.txt" "${A_STDIN_TEXT}")
    set(input_args INPUT_FILE "${WORK}/eval_cli_stdin.txt")
  endif()
  execute_process(COMMAND "${ATTNLAB}" ${A_ARGS} ${input_args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(problems "")
  if(NOT rc STREQUAL A_STATUS)
    string(APPEND problems " exit status ${rc}, expected ${A_STATUS};")
  endif()
  if(A_ONE_LINE_STDERR)
    string(REGEX MATCHALL "\n" newlines "${err}")
    list(LENGTH newlines n)
    if(NOT n EQUAL 1 OR NOT err MATCHES "\n$")
      string(APPEND problems " stderr is not exactly one line;")
    endif()
    if(NOT out STREQUAL "")
      string(APPEND problems " stdout is not empty;")
    endif()
  endif()
  if(A_EMPTY_STDERR AND NOT err STREQUAL "")
    string(APPEND problems " stderr is not empty;")
  endif()
  if(DEFINED A_STDERR AND NOT err STREQUAL "${A_STDERR}\n")
    string(APPEND problems " stderr differs: expected [${A_STDERR}];")
  endif()
  if(DEFINED A_STDOUT_HAS)
    string(FIND "${out}" "${A_STDOUT_HAS}" at)
    if(at LESS 0)
      string(APPEND problems " stdout lacks [${A_STDOUT_HAS}];")
    endif()
  endif()
  if(problems STREQUAL "")
    message(STATUS "ok: ${name}")
  else()
    message(SEND_ERROR "FAILED: ${name}:${problems}\n  stdout: [${out}]\n  stderr: [${err}]")
  endif()
endfunction()

# The documented error example: its expected file holds the exact stderr line.
file(READ docs/examples/error_shape.expected.json expected_json)
string(JSON expected_line GET "${expected_json}" stderr)
string(JSON expected_status GET "${expected_json}" exit_status)
run("shape error, from a file" STATUS ${expected_status} ONE_LINE_STDERR STDERR "${expected_line}"
    ARGS eval docs/examples/error_shape.json)

run("invalid JSON on stdin" STATUS 2 ONE_LINE_STDERR
    STDERR "attnlab eval: invalid JSON: line 2, column 6: expected ':' after the key, got '1'"
    STDIN_TEXT "{\"kind\": \"attention\",\n \"q\" 1}" ARGS eval -)
run("a field name with a newline still gives one line" STATUS 2 ONE_LINE_STDERR
    STDIN_TEXT "{\"kind\": \"rnn\", \"a\\nb\": 1}" ARGS eval)
run("missing file" STATUS 2 ONE_LINE_STDERR ARGS eval docs/examples/does_not_exist.json)
run("unknown command" STATUS 2 ONE_LINE_STDERR ARGS evaluate)
run("unknown option" STATUS 2 ONE_LINE_STDERR ARGS eval --fast docs/examples/attention_basic.json)

run("valid request" STATUS 0 EMPTY_STDERR STDOUT_HAS "0.40111208, 0.19777581, 0.40111208"
    ARGS eval docs/examples/attention_basic.json)
run("valid request, compact, from stdin" STATUS 0 EMPTY_STDERR
    STDOUT_HAS "{\"kind\":\"positional\",\"pe\":[[0,1]],\"warnings\":[]}\n"
    STDIN_TEXT "{\"kind\": \"positional\", \"n\": 1, \"d\": 2}" ARGS eval --compact -)
# A request larger than the 32 MiB limit is refused without reading it to the end
# (read to the end, "attnlab eval - < /dev/zero" grew until memory ran out).
string(REPEAT " " 1048576 mebibyte)
file(WRITE "${WORK}/eval_cli_big.json" "")
foreach(i RANGE 32)
  file(APPEND "${WORK}/eval_cli_big.json" "${mebibyte}")
endforeach()
set(stdin_big "${WORK}/eval_cli_big.json")
run("a request over the limit, streamed on stdin" STATUS 2 ONE_LINE_STDERR
    STDERR "attnlab eval: standard input holds more than 33554432 bytes, the limit for a request (reading stopped there)"
    STDIN_FILE "${stdin_big}" ARGS eval -)
run("a request over the limit, from a file" STATUS 2 ONE_LINE_STDERR
    STDERR "attnlab eval: ${stdin_big} holds more than 33554432 bytes, the limit for a request (reading stopped there)"
    ARGS eval "${stdin_big}")
file(REMOVE "${stdin_big}")

run("--help" STATUS 0 EMPTY_STDERR STDOUT_HAS "usage: attnlab" ARGS --help)
run("version" STATUS 0 EMPTY_STDERR STDOUT_HAS "attnlab " ARGS version)
