package io.ordinal.runtime;

import io.micronaut.context.annotation.Replaces;
import io.micronaut.http.server.netty.DefaultHttpCompressionStrategy;
import io.micronaut.http.server.netty.HttpCompressionStrategy;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import jakarta.inject.Singleton;

/**
 * Compression as the API server does it (its APIResponseCompression): only a response of known
 * length of at least 128 KiB, when the client accepts gzip; never a stream. Micronaut's default
 * compressed every response over 1 KiB, watches included, and clients that read a watch as raw
 * lines (the official Python client reads it with decode_content=False) got gzip bytes.
 */
@Singleton
@Replaces(DefaultHttpCompressionStrategy.class)
public class ResponseCompression implements HttpCompressionStrategy {
  static final int THRESHOLD = 128 * 1024;

  @Override
  public boolean shouldCompress(HttpResponse response) {
    String length = response.headers().get(HttpHeaderNames.CONTENT_LENGTH);
    try {
      return length != null && Long.parseLong(length) >= THRESHOLD;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  @Override
  public int getMaxZstdEncodeSize() {
    return 32 * 1024 * 1024;
  }
}
