"""The always-on station (``station serve``): at most one game at a time, the armies a club
keeps, and every game it has played.  It sits between the running station and the dashboard."""
