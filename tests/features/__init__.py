"""Views, URLconf and server settings for the tests of caching, locks, signals and batches."""
