"""Before and after: two runs' matched rows compared per metric, each change with its 95% interval and a verdict
(better, worse, or `~` where the noise covers it), and a gate that fails a build on a significant regression."""
