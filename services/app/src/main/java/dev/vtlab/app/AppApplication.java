package dev.vtlab.app;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Order-summary service: one JDBC lookup plus one blocking downstream HTTP call per request, so that
 * platform and virtual threads can be compared on the same, realistic I/O-bound path.
 */
@SpringBootApplication
public class AppApplication {

    public static void main(String[] args) {
        SpringApplication.run(AppApplication.class, args);
    }
}
