"""The tournament screen: every table of a club or a tournament on one page, over MQTT.

Each station publishes its journal, its live summary and its health to the club's broker
(station/publish.py); this small Flask app subscribes to all of them, keeps what it learns in
SQLite (so a restart loses nothing), and shows every table, the rulings that wait for a judge,
the judge calls, and the standings with Swiss pairings (docs/tournament.md)."""
