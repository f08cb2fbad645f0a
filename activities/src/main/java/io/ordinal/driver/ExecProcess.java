package io.ordinal.driver;

import java.io.InputStream;
import java.io.OutputStream;
import java.util.Optional;

/** A command started by {@link PodDriver#exec}: its streams, its terminal and its exit. */
public interface ExecProcess {

  /** Where the client's stdin goes; empty when the request attached none. */
  Optional<OutputStream> stdin();

  /** The command's stdout (with a terminal: everything the terminal shows); empty when not attached. */
  Optional<InputStream> stdout();

  /** The command's stderr; empty when not attached or with a terminal. */
  Optional<InputStream> stderr();

  /** Sets the terminal's size (a no-op without a terminal). */
  void resize(int columns, int rows);

  /** Waits for the command to exit and returns its exit code (128 + signal when a signal ended it). */
  int waitFor() throws InterruptedException;

  boolean alive();

  /** Ends the command and what it started (the client went away). */
  void kill();
}
