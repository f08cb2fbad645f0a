package io.ordinal.apimachinery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class KubeProtobufTest {
  @Test
  void aRoleBindingAsKubectlsTypedClientSendsItDecodesToItsJson() throws IOException {
    byte[] meta = message(out -> {
      out.writeString(1, "readers");
      out.writeString(3, "");
      out.writeByteArray(11, message(entry -> {
        entry.writeString(1, "team");
        entry.writeString(2, "a");
      }));
    });
    byte[] subject = message(out -> {
      out.writeString(1, "User");
      out.writeString(2, "rbac.authorization.k8s.io");
      out.writeString(3, "alice");
    });
    byte[] roleRef = message(out -> {
      out.writeString(1, "rbac.authorization.k8s.io");
      out.writeString(2, "ClusterRole");
      out.writeString(3, "view");
    });
    byte[] binding = message(out -> {
      out.writeByteArray(1, meta);
      out.writeByteArray(2, subject);
      out.writeByteArray(3, roleRef);
    });
    byte[] body = envelope("rbac.authorization.k8s.io/v1", "RoleBinding", binding);

    ObjectNode json = KubeProtobuf.decode(body);
    assertEquals("{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\",\"metadata\":{\"name\":\"readers\","
        + "\"namespace\":\"\",\"labels\":{\"team\":\"a\"}},\"subjects\":[{\"kind\":\"User\",\"apiGroup\":\"rbac.authorization.k8s.io\","
        + "\"name\":\"alice\"}],\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"view\"}}",
        json.toString());
  }

  /** Helm's release store deletes its Secrets through client-go's typed client, which sends DeleteOptions so. */
  @Test
  void deleteOptionsDecodeWithTheirInt64GracePeriodAndPreconditions() throws IOException {
    byte[] options = message(out -> {
      out.writeInt64(1, 30);
      out.writeByteArray(2, message(p -> p.writeString(1, "u-1")));
      out.writeString(4, "Foreground");
      out.writeString(5, "All");
    });
    assertEquals("{\"apiVersion\":\"v1\",\"kind\":\"DeleteOptions\",\"gracePeriodSeconds\":30,"
        + "\"preconditions\":{\"uid\":\"u-1\"},\"propagationPolicy\":\"Foreground\",\"dryRun\":[\"All\"]}",
        KubeProtobuf.decode(envelope("v1", "DeleteOptions", options)).toString());
  }

  @Test
  void aNamespaceAsKubectlCreateNamespaceSendsItDecodesToItsNameAndLabels() throws IOException {
    byte[] namespace = message(out -> out.writeByteArray(1, message(meta -> {
      meta.writeString(1, "team-a");
      meta.writeByteArray(11, message(entry -> {
        entry.writeString(1, "pod-security.kubernetes.io/enforce");
        entry.writeString(2, "restricted");
      }));
    })));
    byte[] body = envelope("v1", "Namespace", namespace);
    assertEquals("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"team-a\","
        + "\"labels\":{\"pod-security.kubernetes.io/enforce\":\"restricted\"}}}", KubeProtobuf.decode(body).toString());
    assertEquals(400, org.junit.jupiter.api.Assertions.assertThrows(ApiException.class,
        () -> KubeProtobuf.decode(java.util.Arrays.copyOf(body, body.length - 3))).code(), "a truncated body");
  }

  /** kubectl create secret generic: data is map<string, bytes>, base64 in JSON; immutable a varint. */
  @Test
  void aSecretDecodesItsBytesAsBase64AndItsFlagsAsBooleans() throws IOException {
    byte[] secret = message(out -> {
      out.writeByteArray(1, message(meta -> meta.writeString(1, "db")));
      out.writeByteArray(2, message(entry -> {
        entry.writeString(1, "password");
        entry.writeByteArray(2, new byte[] {'h', 'i', 0, (byte) 0xff});
      }));
      out.writeString(3, "Opaque");
      out.writeBool(5, true);
    });
    assertEquals("{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"db\"},"
        + "\"data\":{\"password\":\"aGkA/w==\"},\"type\":\"Opaque\",\"immutable\":true}",
        KubeProtobuf.decode(envelope("v1", "Secret", secret)).toString());
  }

  /** kubectl create service clusterip: ports with int32 numbers and an IntOrString targetPort. */
  @Test
  void aServiceDecodesItsPortsNumbersAndTargetPorts() throws IOException {
    byte[] port = message(out -> {
      out.writeString(1, "5678-8080");
      out.writeString(2, "TCP");
      out.writeInt32(3, 5678);
      out.writeByteArray(4, message(target -> target.writeInt32(2, 8080)));
    });
    byte[] named = message(out -> {
      out.writeInt32(3, 80);
      out.writeByteArray(4, message(target -> {
        target.writeInt64(1, 1);
        target.writeString(3, "web");
      }));
    });
    byte[] service = message(out -> {
      out.writeByteArray(1, message(meta -> meta.writeString(1, "api")));
      out.writeByteArray(2, message(spec -> {
        spec.writeByteArray(1, port);
        spec.writeByteArray(1, named);
        spec.writeString(4, "ClusterIP");
      }));
    });
    assertEquals("{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"api\"},\"spec\":{\"ports\":["
        + "{\"name\":\"5678-8080\",\"protocol\":\"TCP\",\"port\":5678,\"targetPort\":8080},"
        + "{\"port\":80,\"targetPort\":\"web\"}],\"type\":\"ClusterIP\"}}",
        KubeProtobuf.decode(envelope("v1", "Service", service)).toString());
  }

  @Test
  void aBodyWithoutTheMagicNumberIsABadRequest() {
    assertEquals(400, org.junit.jupiter.api.Assertions.assertThrows(ApiException.class,
        () -> KubeProtobuf.decode("{}".getBytes())).code());
  }

  /** What kubectl sends: the {@code k8s\0} magic, then a runtime.Unknown of the type and the object. */
  private static byte[] envelope(String apiVersion, String kind, byte[] object) throws IOException {
    byte[] unknown = message(out -> {
      out.writeByteArray(1, message(typeMeta -> {
        typeMeta.writeString(1, apiVersion);
        typeMeta.writeString(2, kind);
      }));
      out.writeBytes(2, ByteString.copyFrom(object));
    });
    byte[] body = new byte[unknown.length + 4];
    System.arraycopy(new byte[] {'k', '8', 's', 0}, 0, body, 0, 4);
    System.arraycopy(unknown, 0, body, 4, unknown.length);
    return body;
  }

  private interface Writer {
    void write(CodedOutputStream out) throws IOException;
  }

  private static byte[] message(Writer writer) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    writer.write(out);
    out.flush();
    return bytes.toByteArray();
  }
}
