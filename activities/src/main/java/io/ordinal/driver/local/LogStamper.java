package io.ordinal.driver.local;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Gives each line a container writes the time it was written, as a CRI runtime does, with the
 * service out of the path: a container's processes outlive the service (kill -9 included), so
 * whatever stands between their output and the log file must live in the container's session too.
 *
 * <p>The container's setup shell ({@link ContainerProcess}) starts one stamper per stream, each a
 * bash reading a pipe that becomes the container's stdout or stderr, then execs the container (its
 * pid stays the one recorded and signalled). Each stamper appends to the log, one line per line read:
 *
 * <pre>2016-10-06T00:17:09.669794000Z stdout F message</pre>
 *
 * time in UTC with nine fraction digits (microseconds are what bash's {@code EPOCHREALTIME} has), the
 * stream, {@code F} for a full line or {@code P} for a part of a line longer than {@value #MAX_CHUNK}
 * bytes (the next entries of that stream continue it), then the text. A stamper ignores the signals
 * the container's group is sent on termination, so it writes the container's last words and exits at
 * the end of its input, once every process holding the pipe is gone. A line is written with one
 * write(2) (the stamped line stays below the 4 KiB stdio buffer), so the two stampers of a log do not
 * interleave inside a line. bash drops NUL bytes.
 */
final class LogStamper {
  /** A stamper's argv[0]: how {@link ContainerProcess#killStrays} tells stampers from containers. */
  static final String ARGV0 = "ordinal-log-stamper";
  /** Longest text of one entry; longer lines are split into partial entries. */
  static final int MAX_CHUNK = 4000;
  static final String BASH = "/bin/bash";

  /** The stamper itself, run as {@code bash -c STAMPER ordinal-log-stamper <stream>} with the log as stdout. */
  private static final String STAMPER = """
      trap '' TERM INT HUP QUIT
      exec 2>/dev/null
      for fd in /proc/self/fd/*; do fd=${fd##*/}; (( fd > 2 )) && exec {fd}>&-; done
      export LC_ALL=C TZ=UTC0
      second=-1
      while true; do
        if IFS= read -r -n MAX_CHUNK text; then
          if (( ${#text} == MAX_CHUNK )); then tag=P; else tag=F; fi
        elif [[ -n $text ]]; then
          tag=F
        else
          break
        fi
        now=$EPOCHREALTIME
        if [[ ${now%.*} != "$second" ]]; then
          second=${now%.*}
          printf -v date '%(%Y-%m-%dT%H:%M:%S)T' "$second"
        fi
        printf '%s.%s000Z %s %s %s\\n' "$date" "${now#*.}" "$1" "$tag" "$text"
      done
      """.replace("MAX_CHUNK", Integer.toString(MAX_CHUNK));

  private LogStamper() {}

  /** Whether stamping is possible here: it needs bash 5 ({@code EPOCHREALTIME}). */
  static boolean available() {
    return Files.isExecutable(Path.of(BASH));
  }

  /**
   * Lines for the container's setup shell (bash, its stdout and stderr being the log) that route its
   * stderr and then its stdout through stampers; each stamper's own stdout is the log at its start.
   * The stdout stamper's first stderr is the stderr pipe: it closes it at once, so neither stamper
   * keeps the other's input open.
   */
  static String redirectOutput() {
    String stamper = "exec -a " + ARGV0 + " " + BASH + " -c \"$ordinal_stamper\" " + ARGV0;
    return "ordinal_stamper=" + ContainerProcess.quote(STAMPER) + "\n"
        + "exec 2> >(" + stamper + " stderr)\n"
        + "exec 1> >(" + stamper + " stdout)\n"
        + "unset ordinal_stamper\n";
  }
}
