package com.bettercompute.application.admission;

import com.bettercompute.application.admission.Workload.Kind;
import com.bettercompute.application.admission.Workload.Operation;
import com.bettercompute.application.admission.Workload.PodTemplate;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What the mutating webhook adds so a tenant writes no queue name, no suspend and no toleration. */
class MutateWorkloadTest {
    private final MutateWorkload mutate = new MutateWorkload();

    @org.junit.jupiter.api.Test
    void a_pod_a_replica_set_owns_is_queued_through_its_template() {
        Workload replica = new Workload(Kind.POD, Operation.CREATE, "default", "serve-7d4f9-abcde",
                Map.of(MutateWorkload.QUEUE_LABEL, "default"), true, false,
                List.of(new PodTemplate("serve-7d4f9-abcde", "/spec", 1, 8, null, true)));
        assertEquals(Mutations.NONE, mutate.mutations(replica));
    }

    @org.junit.jupiter.api.Test
    void a_job_another_job_owns_is_queued_through_its_owner() {
        Workload child = new Workload(Kind.JOB, Operation.CREATE, "default", "set-workers-0", Map.of(), true, false,
                List.of(new PodTemplate("template", "/spec/template/spec", 2, 8, null, false)));
        assertEquals(new Mutations(List.of("/spec/template/spec"), false, false), mutate.mutations(child));
    }

    @ParameterizedTest(name = "{0} {1}, {2} GPUs, tolerates {3}, queue label {4}, suspended {5}: tolerate {6}, label {7}, suspend {8}")
    @CsvSource({
            "JOB,    CREATE, 8, false, false, false, /spec/template, true,  true",
            "JOB,    CREATE, 8, true,  false, false, '',             true,  true",
            "JOB,    CREATE, 8, false, true,  true,  /spec/template, false, false",
            "JOB,    CREATE, 0, false, false, false, '',             false, false",
            "JOB,    UPDATE, 8, false, false, false, '',             false, false",
            "JOBSET, CREATE, 8, false, false, false, /spec/template, true,  true",
            "MPIJOB, CREATE, 8, false, false, false, /spec/template, true,  true",
            "POD,    CREATE, 8, false, false, false, /spec/template, true,  false",
            "POD,    CREATE, 8, false, true,  false, /spec/template, false, false",
            "POD,    CREATE, 0, false, false, false, '',             false, false",
            "DEPLOYMENT,  CREATE, 8, false, false, false, /spec/template, true,  false",
            "STATEFULSET, CREATE, 8, true,  false, false, '',             true,  false",
            "REPLICASET,  CREATE, 8, false, false, false, /spec/template, true,  false",
            "DEPLOYMENT,  CREATE, 0, false, false, false, '',             false, false",
    })
    void a_gpu_workload_gets_the_toleration_the_queue_and_suspend(Kind kind, Operation op, long gpus, boolean tolerates,
                                                                  boolean labelled, boolean suspended, String tolerateAt,
                                                                  boolean label, boolean suspend) {
        Map<String, String> labels = labelled ? Map.of(MutateWorkload.QUEUE_LABEL, "mine") : Map.of();
        Workload w = new Workload(kind, op, "default", "train", labels, false, suspended,
                List.of(new PodTemplate("worker", "/spec/template", 2, gpus, null, tolerates)));
        Mutations m = mutate.mutations(w);
        assertEquals(tolerateAt.isEmpty() ? List.of() : List.of(tolerateAt), m.tolerateAt());
        assertEquals(label, m.queueLabel());
        assertEquals(suspend, m.suspend());
    }
}
