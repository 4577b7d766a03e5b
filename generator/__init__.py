"""The storefront generator: crawl -> normalize -> render -> write -> sitemap."""
