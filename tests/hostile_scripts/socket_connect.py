# Tries to open a network connection.
import socket

socket.create_connection(("127.0.0.1", 9), timeout=1)
