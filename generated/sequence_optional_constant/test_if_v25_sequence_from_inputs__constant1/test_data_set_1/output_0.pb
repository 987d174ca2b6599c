
chosen