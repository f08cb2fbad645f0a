package io.ordinal.api.exec;

import io.micronaut.websocket.WebSocketSession;
import io.micronaut.websocket.annotation.OnClose;
import io.micronaut.websocket.annotation.OnMessage;
import io.micronaut.websocket.annotation.OnOpen;
import io.micronaut.websocket.annotation.ServerWebSocket;
import io.ordinal.api.PodService;
import io.ordinal.apimachinery.ApiException;
import io.ordinal.driver.ExecRefusedException;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code pods/{name}/exec} over WebSocket, as kubectl 1.31+ asks for it first (GET with
 * {@code Upgrade: websocket} and subprotocol {@code v5.channel.k8s.io}). Bad requests are answered
 * before the upgrade by {@link ExecUpgradeFilter}; what is left here is running the command.
 */
@ServerWebSocket(value = "/api/v1/namespaces/{namespace}/pods/{name}/exec",
    subprotocols = ExecFrames.V5 + "," + ExecFrames.V4)
public class ExecSocket {
  private static final Logger log = LoggerFactory.getLogger(ExecSocket.class);
  private static final String STREAM = "ordinal.exec";

  private final PodService pods;

  public ExecSocket(PodService pods) {
    this.pods = pods;
  }

  @OnOpen
  public void open(String namespace, String name, WebSocketSession session) {
    session.put(STREAM, ExecStream.open(session, () -> {
      try {
        // Checked again: the pod may have changed since the upgrade was let through.
        ExecOptions options = ExecOptions.parse(session.getRequestParameters());
        PodService.ExecTarget target = pods.execTarget(namespace, name, options.container());
        var request = options.request(target);
        return new ExecStream.PreparedCommand.Started(request, target.driver().exec(request));
      } catch (ApiException e) {
        return new ExecStream.PreparedCommand.Refused(e.code(), e.status().getReason(), e.getMessage());
      } catch (ExecRefusedException e) {
        return new ExecStream.PreparedCommand.Refused(400, "BadRequest", e.getMessage());
      } catch (IOException | RuntimeException e) {
        log.warn("exec in pod {}/{} failed to start", namespace, name, e);
        return new ExecStream.PreparedCommand.Refused(500, "InternalError",
            "Internal error occurred: error executing command in container: " + e.getMessage());
      }
    }));
  }

  @OnMessage(maxPayloadLength = 1024 * 1024)
  public void message(byte[] message, WebSocketSession session) {
    session.get(STREAM, ExecStream.class).ifPresent(stream -> stream.received(message));
  }

  @OnClose
  public void close(WebSocketSession session) {
    session.get(STREAM, ExecStream.class).ifPresent(ExecStream::closed);
  }
}
