* script s
