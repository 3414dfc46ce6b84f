package dev.vtlab.stub;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Stand-in for a slow downstream service. It is non-blocking (Reactor Netty, timers instead of
 * sleeping threads) so that thousands of concurrent requests cost it almost nothing and the app under
 * test stays the only bottleneck.
 */
@SpringBootApplication
public class StubApplication {

    public static void main(String[] args) {
        SpringApplication.run(StubApplication.class, args);
    }
}
