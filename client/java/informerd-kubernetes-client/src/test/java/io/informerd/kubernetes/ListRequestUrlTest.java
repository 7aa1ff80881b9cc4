package io.informerd.kubernetes;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.informerd.kubernetes.InformerdSharedInformerFactory.ListRequestUrl;
import okhttp3.HttpUrl;
import org.junit.Test;

/** The resource, namespace and selectors a client-java call generator's URL names. */
public class ListRequestUrlTest {
  private static String parse(String url) {
    ListRequestUrl r = ListRequestUrl.parse(HttpUrl.get(url));
    return r.resource.group() + "|" + r.resource.version() + "|" + r.resource.resource() + "|"
        + r.namespace + "|" + r.labelSelector + "|" + r.fieldSelector;
  }

  @Test
  public void coreAndGroupResourcesNamespacedOrNot() {
    assertEquals("|v1|pods|||", parse("https://h:6443/api/v1/pods"));
    assertEquals("|v1|configmaps|ns1||", parse("https://h/api/v1/namespaces/ns1/configmaps?watch=false"));
    assertEquals("|v1|namespaces|||", parse("https://h/api/v1/namespaces"));
    assertEquals("apps|v1|deployments|||", parse("https://h/apis/apps/v1/deployments"));
    assertEquals(
        "apps|v1|deployments|x|a=b,c!=d|spec.x=y",
        parse("https://h/prefix/apis/apps/v1/namespaces/x/deployments"
            + "?labelSelector=a%3Db,c!%3Dd&fieldSelector=spec.x%3Dy"));
  }

  @Test
  public void refusesWhatIsNotAListUrl() {
    assertThrows(IllegalArgumentException.class, () -> parse("https://h/healthz"));
    assertThrows(IllegalArgumentException.class, () -> parse("https://h/x/y/z"));
  }
}
