package io.ordinal.logging;

import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.EncoderBase;

/**
 * The service's log encoder: text with {@link #setPattern the pattern}, or with
 * {@code ORDINAL_LOG_FORMAT=json} one JSON object a line (logback's JsonEncoder: timestamp, level,
 * thread, logger, the logging context as {@code mdc}, the formatted message, the throwable). One
 * encoder class, so that logback.xml has one appender per destination whatever the format.
 */
public class LogFormatEncoder extends EncoderBase<ILoggingEvent> {
  private String pattern;
  private Encoder<ILoggingEvent> delegate;

  public void setPattern(String pattern) {
    this.pattern = pattern;
  }

  static boolean json() {
    return "json".equalsIgnoreCase(System.getenv().getOrDefault("ORDINAL_LOG_FORMAT", "text"));
  }

  @Override
  public void start() {
    if (json()) {
      JsonEncoder encoder = new JsonEncoder();
      encoder.setWithSequenceNumber(false);
      encoder.setWithNanoseconds(false);
      encoder.setWithContext(false);
      encoder.setWithKVPList(false);
      encoder.setWithMarkers(false);
      encoder.setWithMessage(false);
      encoder.setWithArguments(false);
      encoder.setWithFormattedMessage(true);
      delegate = encoder;
    } else {
      PatternLayoutEncoder encoder = new PatternLayoutEncoder();
      encoder.setPattern(pattern);
      delegate = encoder;
    }
    delegate.setContext(getContext());
    delegate.start();
    super.start();
  }

  @Override
  public void stop() {
    if (delegate != null) {
      delegate.stop();
    }
    super.stop();
  }

  @Override
  public byte[] headerBytes() {
    return delegate.headerBytes();
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    return delegate.encode(event);
  }

  @Override
  public byte[] footerBytes() {
    return delegate.footerBytes();
  }
}
