<!-- placeholder: the front end is being written -->
