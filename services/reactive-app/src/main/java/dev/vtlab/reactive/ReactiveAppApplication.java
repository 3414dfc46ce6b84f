package dev.vtlab.reactive;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The app's order-summary service on WebFlux, R2DBC and WebClient: the same database lookup and the same
 * downstream call, with no thread waiting on either, so the third threading model meets the other two on
 * the same workload.
 */
@SpringBootApplication
public class ReactiveAppApplication {

    public static void main(String[] args) {
        SpringApplication.run(ReactiveAppApplication.class, args);
    }
}
