package io.informerd.kubernetes;

import io.informerd.client.Connection;
import io.informerd.client.ResourceRef;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;

/**
 * The one line that moves a client-java informer to informerd: where a
 * controller called
 * {@code factory.sharedIndexInformerFor(callGenerator, V1Pod.class, V1PodList.class)},
 * it calls
 * {@code InformerdInformers.sharedIndexInformerFor(factory, connection, V1Pod.class, V1PodList.class, "", "v1", "pods")}
 * and gets the same kind of informer, registered in the same factory
 * (started by {@code startAllRegisteredInformers}, found by
 * {@code getExistingSharedIndexInformer}), whose list and watch go to
 * informerd.
 */
public final class InformerdInformers {
  private InformerdInformers() {}

  /** All namespaces, no selectors, no resync. */
  public static <T extends KubernetesObject, L extends KubernetesListObject>
      SharedIndexInformer<T> sharedIndexInformerFor(
          SharedInformerFactory factory,
          Connection connection,
          Class<T> apiTypeClass,
          Class<L> apiListTypeClass,
          String group,
          String version,
          String resource) {
    return sharedIndexInformerFor(
        factory,
        InformerdListerWatcher.builder(
                connection, apiTypeClass, apiListTypeClass, new ResourceRef(group, version, resource))
            .build(),
        apiTypeClass,
        0);
  }

  /**
   * With a configured lister-watcher (namespace, selectors) and a resync
   * period in milliseconds (0: none), as client-java's own overload.
   */
  public static <T extends KubernetesObject, L extends KubernetesListObject>
      SharedIndexInformer<T> sharedIndexInformerFor(
          SharedInformerFactory factory,
          InformerdListerWatcher<T, L> listerWatcher,
          Class<T> apiTypeClass,
          long resyncPeriodMillis) {
    return factory.sharedIndexInformerFor(listerWatcher, apiTypeClass, resyncPeriodMillis);
  }
}
