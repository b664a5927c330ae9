"""The authors' console (``/console``): an author's own bots, versions, builds, duels and seats.

``routes`` holds the pages and their JSON twins; ``client`` calls the Admin API with the author's
own token; ``data`` shapes its answers for the pages; ``sessions`` keeps sign-ins and CSRF;
``upload`` turns a browser's archive or folder into a submission. It imports the rest of web/
nothing but what it is given, and reaches the server only through the Admin API.
"""
