package io.ordinal.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.store.KubeJson;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A watch of a list path (a client's informer, without its cache): lists once for a resourceVersion,
 * then hands each event (type and object) to a consumer on its own virtual thread until closed.
 */
final class WatchStream implements AutoCloseable {
  private final InputStream body;
  private final AtomicLong events = new AtomicLong();

  WatchStream(Api api, String listPath, Consumer<JsonNode> onEvent) throws Exception {
    String from = api.get(listPath).json().at("/metadata/resourceVersion").asText();
    String separator = listPath.contains("?") ? "&" : "?";
    body = api.client().send(api.request(listPath + separator + "watch=true&timeoutSeconds=3600&resourceVersion=" + from)
        .timeout(Duration.ofHours(1)).build(), HttpResponse.BodyHandlers.ofInputStream()).body();
    Thread.ofVirtual().start(() -> {
      try (BufferedReader reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
        String line;
        while ((line = reader.readLine()) != null) {
          if (!line.isBlank()) {
            events.incrementAndGet();
            onEvent.accept(KubeJson.JSON.readTree(line));
          }
        }
      } catch (Exception e) {
        // closed
      }
    });
  }

  long events() {
    return events.get();
  }

  @Override
  public void close() throws Exception {
    body.close();
  }
}
