package com.bettercompute.adapters.persistence;

import java.util.Map;
import java.util.UUID;

class H2JdbiAdapterTest extends JdbiAdapterContract {
    private final String url = "jdbc:h2:mem:bc_" + UUID.randomUUID().toString().replace("-", "");

    @Override
    protected Map.Entry<Database, Runnable> open() {
        return Map.entry(Database.open(url), () -> {});
    }

    @Override
    protected Database reopen() {
        return Database.open(url);
    }
}
