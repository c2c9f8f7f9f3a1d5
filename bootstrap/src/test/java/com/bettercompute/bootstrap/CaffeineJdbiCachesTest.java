package com.bettercompute.bootstrap;

import org.jdbi.v3.core.cache.JdbiCache;
import org.jdbi.v3.core.cache.JdbiCacheStats;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The database's caches on Caffeine: loaded once per key, a null not kept, never more entries than asked. */
class CaffeineJdbiCachesTest {

    @Test
    void a_key_is_loaded_once_and_a_null_is_loaded_again_each_time() {
        JdbiCache<String, String> cache = new CaffeineJdbiCaches().maxSize(100).build();
        AtomicInteger loads = new AtomicInteger();

        assertThat(cache.getWithLoader("kcl_1", k -> k + "#" + loads.incrementAndGet())).isEqualTo("kcl_1#1");
        assertThat(cache.getWithLoader("kcl_1", k -> k + "#" + loads.incrementAndGet())).isEqualTo("kcl_1#1");
        assertThat(cache.getWithLoader("absent", k -> { loads.incrementAndGet(); return null; })).isNull();
        assertThat(cache.getWithLoader("absent", k -> { loads.incrementAndGet(); return null; })).isNull();

        assertThat(loads).hasValue(3);
        assertThat(cache.get("kcl_1")).isEqualTo("kcl_1#1");
        assertThat(cache.get("absent")).isNull();
    }

    @Test
    void a_cache_built_with_its_loader_loads_on_get_and_holds_at_most_its_size_without_emptying() {
        AtomicInteger loads = new AtomicInteger();
        JdbiCache<Integer, String> cache = new CaffeineJdbiCaches().maxSize(50)
                .buildWithLoader(k -> { loads.incrementAndGet(); return "sql " + k; });

        for (int i = 0; i < 1_000; i++) {
            assertThat(cache.get(i % 40)).isEqualTo("sql " + (i % 40));
        }
        assertThat(loads).as("the 40 texts of a fixed set, each loaded once").hasValue(40);
        for (int i = 0; i < 1_000; i++) {
            cache.get(1_000 + i);
        }

        JdbiCacheStats stats = cache.getStats();
        assertThat(stats.maxSize()).isEqualTo(50);
        assertThat(stats.cacheSize()).isBetween(1, 50);
    }
}
