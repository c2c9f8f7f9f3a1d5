package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.MarketClusterClient.ObjectRef;
import com.bettercompute.application.port.MarketClusterClient.PodOnNode;
import com.bettercompute.application.port.MarketClusterClient.PostedEvent;
import com.bettercompute.application.port.ProviderException;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.mockwebserver.http.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * API shapes of the notice's pod operations of {@link Fabric8MarketClusterClient} on fabric8's CRUD mock:
 * pods of a node (filtered in code), their annotation, Events on a node, and the Eviction API — which the
 * mock does not serve, so it is stubbed and the request asserted.
 */
class PodNoticeOnFabric8MockTest {
    CrudMockCluster cluster;
    Fabric8MarketClusterClient client;
    final ObjectRef pod = new ObjectRef("v1", "Pod", "research", "train-0", "uid-train-0");

    @BeforeEach
    void start() {
        cluster = new CrudMockCluster();
        client = new Fabric8MarketClusterClient(5000, 60_000);
        for (String[] p : new String[][] {{"train-0", "gke-mk-a"}, {"train-1", "gke-mk-b"}}) {
            cluster.admin().pods().inNamespace("research").resource(new PodBuilder().withNewMetadata().withName(p[0])
                    .withNamespace("research").endMetadata().withNewSpec().withNodeName(p[1]).addNewContainer().withName("c")
                    .withImage("trainer").endContainer().endSpec().build()).create();
        }
    }

    @AfterEach
    void stop() {
        client.close();
        cluster.close();
    }

    @Test
    void lists_only_the_pods_bound_to_the_node_and_annotates_one() {
        List<PodOnNode> pods = client.podsOn(cluster.connection(), "gke-mk-a");
        assertThat(pods).extracting(p -> p.pod().name()).containsExactly("train-0");

        client.annotatePod(cluster.connection(), pod, Map.of("marketplace.nationalcompute.com/preempt-at", "2026-03-01T12:01:00Z"));

        assertThat(cluster.admin().pods().inNamespace("research").withName("train-0").get().getMetadata().getAnnotations())
                .containsEntry("marketplace.nationalcompute.com/preempt-at", "2026-03-01T12:01:00Z");
    }

    @Test
    void evicts_through_the_eviction_api_with_the_time_left_as_grace() throws InterruptedException {
        cluster.server.expect().post().withPath("/api/v1/namespaces/research/pods/train-0/eviction")
                .andReturn(201, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Success\"}").once();

        client.evictPod(cluster.connection(), pod, 45);

        RecordedRequest request = cluster.server.getLastRequest();
        assertThat(request.getPath()).isEqualTo("/api/v1/namespaces/research/pods/train-0/eviction");
        String body = request.getBody().readUtf8();
        assertThat(body).contains("\"kind\":\"Eviction\"").contains("\"gracePeriodSeconds\":45").contains("\"name\":\"train-0\"");
    }

    @Test
    void an_eviction_a_disruption_budget_refuses_is_unavailable_and_a_gone_pod_is_a_success() {
        cluster.server.expect().post().withPath("/api/v1/namespaces/research/pods/train-0/eviction")
                .andReturn(429, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":429}").once();
        cluster.server.expect().post().withPath("/api/v1/namespaces/research/pods/gone/eviction")
                .andReturn(404, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":404}").once();

        assertThatThrownBy(() -> client.evictPod(cluster.connection(), pod, 45))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(ProviderException.Kind.UNAVAILABLE));
        client.evictPod(cluster.connection(), new ObjectRef("v1", "Pod", "research", "gone", null), 45);
    }

    @Test
    void an_event_on_a_node_lives_in_default_and_names_the_node_without_a_namespace() {
        client.postEvent(cluster.connection(), new ObjectRef("v1", "Node", "default", "gke-mk-a", null),
                new PostedEvent("gke-mk-a.0123456789abcdef", "Warning", "NodePreempting", "reclaimed", Instant.parse("2026-03-01T12:00:00Z")));

        List<Event> events = cluster.admin().v1().events().inNamespace("default").list().getItems();
        assertThat(events).singleElement().satisfies(e -> {
            assertThat(e.getInvolvedObject().getKind()).isEqualTo("Node");
            assertThat(e.getInvolvedObject().getNamespace()).isNull();
            assertThat(e.getReason()).isEqualTo("NodePreempting");
        });
    }
}
