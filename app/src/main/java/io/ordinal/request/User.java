package io.ordinal.request;

import io.micronaut.http.HttpRequest;
import java.security.Principal;
import java.util.List;
import java.util.Optional;

/**
 * Who made a request, as Kubernetes' {@code user.Info}: a name, a uid and groups. Every
 * authenticated user is also in {@code system:authenticated}; a request without credentials is
 * {@code system:anonymous} in {@code system:unauthenticated}.
 */
public record User(String name, String uid, List<String> groups) implements Principal {
  /** Upstream's superuser group: bound to cluster-admin, it may do anything. */
  public static final String MASTERS = "system:masters";
  public static final String AUTHENTICATED = "system:authenticated";
  public static final User ANONYMOUS = new User("system:anonymous", "", List.of("system:unauthenticated"));
  /** The request attribute authentication sets: the user who made the request. */
  public static final String ATTRIBUTE = "ordinal.user";

  public User {
    groups = List.copyOf(groups);
  }

  /** A user a credential vouched for: its groups and {@code system:authenticated}. */
  public static User authenticated(String name, String uid, List<String> groups) {
    return new User(name, uid, groups.contains(AUTHENTICATED) ? groups
        : java.util.stream.Stream.concat(groups.stream(), java.util.stream.Stream.of(AUTHENTICATED)).toList());
  }

  /** Who made {@code request}; empty before authentication. */
  public static Optional<User> of(HttpRequest<?> request) {
    return request.getAttribute(ATTRIBUTE, User.class);
  }

  public boolean anonymous() {
    return this.equals(ANONYMOUS);
  }

  public boolean inGroup(String group) {
    return groups.contains(group);
  }

  @Override
  public String getName() {
    return name;
  }
}
