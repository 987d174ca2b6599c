
optional*JxJð